import { type StatementStructures, StructureKind } from 'ts-morph';
import type { EmittedFile } from '../../emit/emitter.js';
import { tsFile } from '../../emit/ts-file.js';
import { checkName } from '../../kit/names.js';
import { FileScope } from '../../kit/scope.js';
import { holdsSensitive } from './fields.js';
import type { ValidatorModel } from './model.js';
import { pickFunction, schemaFunction } from './objects.js';

/** validators.gen.ts: one straight-line check per object schema the event reaches, and the entry point. */
export function validatorsFile(dir: string, m: ValidatorModel): EmittedFile {
  const scope = new FileScope();
  const functions = m.schemas.flatMap((s) => [schemaFunction(m.ir, s, scope), pickFunction(s)]);
  const mismatch = scope.lib('json-type', 'mismatch');
  const entry: StatementStructures = {
    kind: StructureKind.Function,
    isExported: true,
    name: `validate${m.event.name}`,
    docs: [
      `Checks one ${m.event.name} against every per-event rule of the spec (C4) and collects its problems in \`o\`.\n` +
        'Returns the event as accepted (values dropped by warnings removed, normalized values replaced; the\n' +
        'input itself when nothing changed), or undefined when it is not an object. It failed when `o.errors`\n' +
        'is not empty.',
    ],
    parameters: [
      { name: 'v', type: 'unknown' },
      { name: 'c', type: 'Ctx' },
      { name: 'o', type: 'EventProblems' },
    ],
    returnType: 'Record<string, unknown> | undefined',
    statements: [
      "if (typeof v !== 'object' || v === null || Array.isArray(v)) {",
      `  ${mismatch}(o, '', -1, '', -1, v, 'an object', 'o', ${holdsSensitive(m.ir, { kind: 'ref', name: m.event.name, target: 'object' })});`,
      '  return undefined;',
      '}',
      `return ${checkName(m.event.name)}(v as Record<string, unknown>, '', -1, c, o);`,
    ].join('\n'),
  };
  const path = `${dir}/validators.gen.ts`;
  return {
    path,
    content: tsFile(path, [...scope.importStatements(), ...scope.constantStatements(), entry, ...functions]),
  };
}
