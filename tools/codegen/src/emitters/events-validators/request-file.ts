import type { EmittedFile } from '../../emit/emitter.js';
import { tsFile } from '../../emit/ts-file.js';
import type { IR } from '../../ir/types.js';
import { block, limitValue, quote } from '../../kit/code.js';
import { FileScope } from '../../kit/scope.js';
import { dataAt, schemaAt } from '../../kit/spec-at.js';
import type { ValidatorModel } from './model.js';

/** Path of the body itself in request-level details. */
const BODY = 'body';

function problemKey(ir: IR, key: string): string {
  if (!ir.requestProblems.some((p) => p.key === key))
    dataAt(ir, 'requestErrors', 'problems').fail('request-problem-missing', {
      key,
      why: 'the batch body (C2)',
    });
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
      `${problem}(r, ${problemKey(ir, `${BODY}_not_object`)}, ${quote(BODY)}, { received: ${received}(b), fields: ${quote(request.fields.map((x) => x.name).join(', '))} });`,
      'return undefined;',
    ]),
    'const s = b as Record<string, unknown>;',
    `const d = s[${name}];`,
    ...arrayChecks,
    ...unknownKeys,
    'return r.error === undefined && Array.isArray(d) ? d : undefined;',
  ].join('\n');
  const key = m.dedup.key;
  // The parts other than the last are compared with ===, which is the Map's SameValueZero for strings.
  for (const k of key) {
    const t = m.event.fields.find((x) => x.name === k)!.type;
    if (!(t.kind === 'primitive' && t.name === 'string') && !(t.kind === 'ref' && t.target === 'enum'))
      schemaAt(m.ir, m.request.name, undefined, 'x-dedup', 'key').fail('dedup-key-not-string', {
        key: k,
        schema: m.event.name,
      });
  }
  const last = quote(key[key.length - 1]!);
  const same = (x: string) =>
    key
      .slice(0, -1)
      .map((k) => `(accepted[${x}] as Record<string, unknown>)[${quote(k)}] === e[${quote(k)}]`)
      .join(' && ');
  const levels =
    key.length === 1
      ? [
          `const at = seen.get(e[${last}]) as number | undefined;`,
          `if (at === undefined) seen.set(e[${last}], i);`,
          'return at ?? -1;',
        ]
      : [
          `const at = seen.get(e[${last}]);`,
          ...block('if (at === undefined) ', [`seen.set(e[${last}], i);`, 'return -1;']),
          ...block("if (typeof at === 'number') ", [
            `if (${same('at')}) return at;`,
            `seen.set(e[${last}], [at, i]);`,
            'return -1;',
          ]),
          `for (const k of at) if (${same('k')}) return k;`,
          'at.push(i);',
          'return -1;',
        ];
  const path = `${dir}/request.gen.ts`;
  const statements = [
    `/** Name of the events array of the batch body, for paths such as \`${f.name}[3]\` (C6 warnings). */\nexport const BATCH_FIELD = ${name};`,
    `/**\n * C2: checks the batch body (${request.name}) and returns its events, or undefined after adding the\n * request-level problems to \`r\`.\n */\nexport function checkRequestBody(b: unknown, r: RequestProblems): readonly unknown[] | undefined {\n${body
      .split('\n')
      .map((l) => `  ${l}`)
      .join('\n')}\n}`,
    `/**\n * C6, within a batch: the index of the earlier processed event with the same (${key.join(', ')}), or -1\n * after remembering event \`i\`. \`seen\` maps the last key part, nearly unique, to the events carrying it\n * (a list once two differ in the other parts), whose other parts are compared on \`accepted\`: one map read\n * per event, and no key string is built.\n */\nexport function earlierWithKey(\n  seen: Map<unknown, number | number[]>,\n  e: Readonly<Record<string, unknown>>,\n  i: number,\n  accepted: readonly unknown[],\n): number {\n${levels
      .map((l) => `  ${l}`)
      .join('\n')}\n}`,
    `/** C6: the time of an accepted event (\`${m.timeField}\`), named in the duplicate warning. */\nexport function dedupTime(e: Readonly<Record<string, unknown>>): unknown {\n  return e[${quote(m.timeField)}];\n}`,
  ];
  return { path, content: tsFile(path, [...scope.importStatements(), ...statements]) };
}
