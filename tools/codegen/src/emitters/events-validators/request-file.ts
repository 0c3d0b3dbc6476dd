import type { EmittedFile } from '../../emit/emitter.js';
import { tsFile } from '../../emit/ts-file.js';
import type { IR } from '../../ir/types.js';
import { block, limitValue, quote } from './code.js';
import type { ValidatorModel } from './model.js';
import { FileScope } from './scope.js';

/** Path of the body itself in request-level details. */
const BODY = 'body';

function problemKey(ir: IR, key: string): string {
  if (!ir.requestProblems.some((p) => p.key === key))
    throw new Error(
      `events-validators: spec/data/request-errors.yaml has no problem "${key}" for the batch body (C2)`,
    );
  return quote(key);
}

/**
 * request.gen.ts: the C2 checks that depend on the body alone (object, the events array present, an array,
 * within its bounds, no unknown top-level key), and the C6 dedup key of an accepted event.
 */
export function requestFile(dir: string, m: ValidatorModel): EmittedFile {
  const { ir, request, batchField: f } = m;
  const scope = new FileScope();
  scope.lib('request', 'RequestProblems', true);
  const problem = scope.lib('request', 'requestProblem');
  const received = scope.lib('problems', 'received');
  const name = quote(f.name);
  const bounds = f.rules.find((r) => r.kind === 'bounds');
  const min =
    bounds?.kind === 'bounds' && bounds.minItems !== undefined ? limitValue(bounds.minItems) : undefined;
  const max =
    bounds?.kind === 'bounds' && bounds.maxItems !== undefined ? limitValue(bounds.maxItems) : undefined;
  const arrayChecks = [
    ...(f.required
      ? [`if (d === undefined) ${problem}(r, ${problemKey(ir, `${f.name}_missing`)}, ${name}, {});`]
      : []),
    `${f.required ? 'else ' : ''}if (!Array.isArray(d)) ${problem}(r, ${problemKey(ir, `${f.name}_not_array`)}, ${name}, { received: ${received}(d) });`,
    ...(min !== undefined
      ? [
          `else if (d.length < ${min}) ${problem}(r, ${problemKey(ir, `${f.name}_empty`)}, ${name}, { min: ${min} });`,
        ]
      : []),
    ...(max !== undefined
      ? [
          `else if (d.length > ${max}) ${problem}(r, ${problemKey(ir, `${f.name}_too_many`)}, ${name}, { max: ${max}, count: d.length });`,
        ]
      : []),
  ];
  const known = request.fields.map((x) => x.name);
  const unknownKeys =
    request.unknownKeys === 'request'
      ? block('for (const k in s) ', [
          ...block('switch (k) ', [
            ...known.map((k) => `case ${quote(k)}:`),
            '  break;',
            'default:',
            `  ${problem}(r, ${problemKey(ir, 'unknown_top_level_key')}, k, { allowed: ${quote(known.join(', '))} });`,
          ]),
        ])
      : [];
  const body = [
    ...block("if (typeof b !== 'object' || b === null || Array.isArray(b)) ", [
      `${problem}(r, ${problemKey(ir, `${BODY}_not_object`)}, ${quote(BODY)}, { received: ${received}(b) });`,
      'return undefined;',
    ]),
    'const s = b as Record<string, unknown>;',
    `const d = s[${name}];`,
    ...arrayChecks,
    ...unknownKeys,
    'return r.error === undefined && Array.isArray(d) ? d : undefined;',
  ].join('\n');
  const key = m.dedup.key;
  const levels = key.map((k, n) => {
    const last = n === key.length - 1;
    const map = n === 0 ? 'seen' : `m${n - 1}`;
    return last
      ? [
          `const earlier = ${map}.get(e[${quote(k)}]) as number | undefined;`,
          `if (earlier === undefined) ${map}.set(e[${quote(k)}], i);`,
          'return earlier ?? -1;',
        ]
      : [
          `let m${n} = ${map}.get(e[${quote(k)}]) as Map<unknown, unknown> | undefined;`,
          ...block(`if (m${n} === undefined) `, [`m${n} = new Map();`, `${map}.set(e[${quote(k)}], m${n});`]),
        ];
  });
  const path = `${dir}/request.gen.ts`;
  const statements = [
    `/** Name of the events array of the batch body, for paths such as \`${f.name}[3]\` (C6 warnings). */\nexport const BATCH_FIELD = ${name};`,
    `/**\n * C2: checks the batch body (${request.name}) and returns its events, or undefined after adding the\n * request-level problems to \`r\`.\n */\nexport function checkRequestBody(b: unknown, r: RequestProblems): readonly unknown[] | undefined {\n${body
      .split('\n')
      .map((l) => `  ${l}`)
      .join('\n')}\n}`,
    `/**\n * C6, within a batch: the index of the earlier event with the same (${key.join(', ')}) in \`seen\`, or -1\n * after remembering event \`i\` under it. One map level per key part: no key string is built.\n */\nexport function earlierWithKey(seen: Map<unknown, unknown>, e: Readonly<Record<string, unknown>>, i: number): number {\n${levels
      .flat()
      .map((l) => `  ${l}`)
      .join('\n')}\n}`,
    `/** C6: the time of an accepted event (\`${m.timeField}\`), named in the duplicate warning. */\nexport function dedupTime(e: Readonly<Record<string, unknown>>): unknown {\n  return e[${quote(m.timeField)}];\n}`,
  ];
  return { path, content: tsFile(path, [...scope.importStatements(), ...statements]) };
}
