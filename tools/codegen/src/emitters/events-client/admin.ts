import { type StatementStructures, StructureKind, VariableDeclarationKind } from 'ts-morph';
import type { EmittedFile } from '../../emit/emitter.js';
import { tsFile } from '../../emit/ts-file.js';
import type { IR, OperationIR, ParameterIR } from '../../ir/types.js';
import { doc, literal, quote } from '../../kit/literal.js';
import { specAt } from '../../kit/spec-at.js';
import { type Obj, operation, rawResponses, successStatus } from './operations.js';

/**
 * The admin API for @org/events-client (C106): every operation under the spec's `/admin/` paths, as the
 * same runtime table the sender's operations have plus what an operator's call needs (its query parameters
 * and what its success answers), and one interface that types each operation's path, query, body and
 * answer with the schemas of @org/events-types. The inspector calls these by id; nothing of them is hand-built.
 */
const ADMIN_PREFIX = '/admin/';

/**
 * A literal on one line, whatever its length: the table's entries share most of their members, and one line
 * an operation reads as a table (and is not a run of repeated lines).
 */
function inline(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(inline).join(', ')}]`;
  if (value === null || typeof value !== 'object') return literal(value);
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) return '{}';
  const key = (k: string) => (/^[A-Za-z_$][\w$]*$/.test(k) ? k : quote(k));
  return `{ ${entries.map(([k, v]) => `${key(k)}: ${inline(v)}`).join(', ')} }`;
}

/** What a success answer is: JSON to parse, nothing (204), an event stream, or a file to download. */
type Answer = 'json' | 'empty' | 'event-stream' | 'file';

function success(ir: IR, op: OperationIR): { answer: Answer; content: Obj } {
  const raw = rawResponses(ir, op)[String(successStatus(ir, op))] ?? {};
  const content = (raw.content ?? {}) as Record<string, Obj>;
  const types = Object.keys(content);
  if (types.length === 0) return { answer: 'empty', content: {} };
  if (types.includes('application/json')) return { answer: 'json', content: content['application/json']! };
  if (types.includes('text/event-stream')) return { answer: 'event-stream', content: {} };
  return { answer: 'file', content: {} };
}

/** How the runtime reads a query parameter from text: its type, or the values of its enum. */
function queryKind(p: ParameterIR): string | string[] {
  if (p.enum) return p.enum;
  return p.type.kind === 'primitive' ? p.type.name : 'string';
}

function tsOf(p: ParameterIR): string {
  if (p.enum) return p.enum.map(quote).join(' | ');
  if (p.type.kind !== 'primitive') return 'string';
  return p.type.name === 'integer' || p.type.name === 'number' ? 'number' : p.type.name;
}

function members(params: ParameterIR[]): string {
  if (params.length === 0) return 'never';
  return `{ ${params.map((p) => `${p.name}${p.required ? '' : '?'}: ${tsOf(p)};`).join(' ')} }`;
}

/** An answer's type: a component schema by name, or a small inline object of primitives. */
function schemaType(ir: IR, op: OperationIR, schema: Obj, named: Set<string>): string {
  const answerAt = () => specAt(ir, 'paths', op.path, op.method, 'responses');
  const ref = schema.$ref;
  if (typeof ref === 'string') {
    const name = ref.split('/').pop()!;
    named.add(name);
    return name;
  }
  const props = (schema.properties ?? {}) as Record<string, Obj>;
  if (schema.type !== 'object' || Object.keys(props).length === 0)
    return answerAt().fail('inline-answer-not-object');
  const required = new Set((schema.required ?? []) as string[]);
  const fields = Object.entries(props).map(([name, p]) => {
    const t = p.type === 'integer' ? 'number' : p.type;
    if (!['number', 'string', 'boolean'].includes(String(t)))
      return answerAt().fail('inline-answer-member-not-primitive', { name });
    return `${name}${required.has(name) ? '' : '?'}: ${t};`;
  });
  return `{ ${fields.join(' ')} }`;
}

function responseType(ir: IR, op: OperationIR, named: Set<string>): string {
  const s = success(ir, op);
  if (s.answer === 'empty') return 'void';
  if (s.answer !== 'json') return 'string';
  return schemaType(ir, op, (s.content.schema ?? {}) as Obj, named);
}

export function adminFile(ir: IR, dir: string): EmittedFile {
  const ops = ir.operations
    .filter((op) => op.path.startsWith(ADMIN_PREFIX))
    .sort((a, b) => (a.operationId < b.operationId ? -1 : 1));
  // The schemas the types name, imported (type only) from @org/events-types.
  const named = new Set<string>();
  const types = ops.map((op) => {
    const path = members(op.parameters.filter((p) => p.in === 'path'));
    const query = members(op.parameters.filter((p) => p.in === 'query'));
    if (op.requestBody) named.add(op.requestBody);
    const body = op.requestBody ?? 'never';
    const response = responseType(ir, op, named);
    return { op, text: `{ path: ${path}; query: ${query}; body: ${body}; response: ${response} }` };
  });
  const table = `{\n${ops
    .map((op) => {
      const entry = {
        ...operation(ir, op),
        query: Object.fromEntries(
          op.parameters.filter((p) => p.in === 'query').map((p) => [p.name, queryKind(p)]),
        ),
        answer: success(ir, op).answer,
      };
      return `  ${quote(op.operationId)}: ${inline(entry)},`;
    })
    .join('\n')}\n}`;
  const statements: (string | StatementStructures)[] = [
    `import type { ${[...named].sort().join(', ')} } from '@org/events-types';`,
    {
      kind: StructureKind.VariableStatement,
      isExported: true,
      declarationKind: VariableDeclarationKind.Const,
      docs: [
        doc(
          'The admin API, keyed by operationId: the shape of CLIENT_OPERATIONS, the header a cookie-' +
            'authenticated call adds (csrfHeader, C71), the query parameters in the order of the spec with ' +
            'their type or enum values, and what the success answers: json, empty, an event-stream or a file ' +
            '(C106). One line an operation.',
        ),
      ],
      declarations: [{ name: 'ADMIN_OPERATIONS', initializer: `${table} as const` }],
    },
    {
      kind: StructureKind.Interface,
      name: 'AdminOperations',
      isExported: true,
      docs: [
        "Each admin operation's path parameters, query, JSON body and answer, from the spec (never when " +
          'there is none); the answer of an event-stream or a file is its text.',
      ],
      properties: types.map((t) => ({ name: quote(t.op.operationId), type: t.text, docs: [t.op.summary] })),
    },
    {
      kind: StructureKind.TypeAlias,
      name: 'AdminOperationId',
      isExported: true,
      type: 'keyof typeof ADMIN_OPERATIONS',
      docs: ['An operation of the admin API.'],
    },
  ];
  return { path: `${dir}/admin.gen.ts`, content: tsFile(`${dir}/admin.gen.ts`, statements) };
}
