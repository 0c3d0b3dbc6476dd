import type { StatementStructures } from 'ts-morph';
import type { EmittedFile } from '../../emit/emitter.js';
import { constStatement, tsFile } from '../../emit/ts-file.js';
import type {
  FieldIR,
  IR,
  LimitRef,
  OperationIR,
  ParameterIR,
  RuleIR,
  SchemaIR,
  TypeIR,
} from '../../ir/types.js';
import { dataAt, specAt } from '../../kit/spec-at.js';

/**
 * request-checks.gen.ts: the request-level checks (C2 row 400) of every body and query the spec declares,
 * other than the events batch (checked by @org/events-validators' generated request.gen.ts): one table
 * per body schema and per operation's query, read by the rule kinds of src/core/request-checks.ts, and a
 * typed function per body and query, so a route gets typed values or problems keyed in request-errors.yaml.
 */

type Bounds = Extract<RuleIR, { kind: 'bounds' }>;

const num = (v: LimitRef | number | undefined): number | null =>
  v === undefined ? null : typeof v === 'number' ? v : v.value;

/** A numeric rule's range in words, for `number_out_of_range`. */
function boundText(min: number | null, max: number | null, what = 'an integer'): string {
  if (min !== null && max !== null) return `${what} from ${min} to ${max}`;
  if (min !== null) return `${what} of at least ${min}`;
  if (max !== null) return `${what} of at most ${max}`;
  return what;
}

function inclusiveMax(max: number | undefined, exclusive: number | undefined): number | null {
  if (exclusive !== undefined) return max === undefined ? exclusive - 1 : Math.min(max, exclusive - 1);
  return max ?? null;
}

function pascal(s: string): string {
  return s
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');
}

class ChecksModel {
  readonly objects = new Map<string, unknown>();
  readonly types: string[] = [];

  constructor(readonly ir: IR) {}

  problem(key: string, why: string): string {
    if (!this.ir.requestProblems.some((p) => p.key === key))
      dataAt(this.ir, 'requestErrors', 'problems').fail('request-problem-missing', { key, why });
    return key;
  }

  expectedOf(schema: string): string {
    const s = (this.ir.openapi.components as { schemas: Record<string, Record<string, unknown>> }).schemas[
      schema
    ];
    const x = s?.['x-expected'];
    return typeof x === 'string' ? x : `an object (${schema})`;
  }

  value(t: TypeIR, rules: RuleIR[], itemRules: RuleIR[], expected: string, field: string): unknown {
    const bounds = rules.find((r): r is Bounds => r.kind === 'bounds');
    if (t.kind === 'array') {
      const why = `array field ${field}`;
      return {
        kind: 'array',
        expected,
        minItems: num(bounds?.minItems),
        maxItems: num(bounds?.maxItems),
        problems: {
          missing: this.problem(`${field}_missing`, why),
          notArray: this.problem(`${field}_not_array`, why),
          empty: this.problem(`${field}_empty`, why),
          tooMany: this.problem(`${field}_too_many`, why),
        },
        items: this.value(t.items, itemRules, [], expected, field),
      };
    }
    if (t.kind === 'ref' && t.target === 'object') {
      this.object(t.name);
      return { kind: 'object', schema: t.name };
    }
    if (t.kind === 'primitive' && t.name === 'integer') {
      const min = bounds?.minimum ?? null;
      const max = inclusiveMax(bounds?.maximum, bounds?.exclusiveMaximum);
      return { kind: 'integer', expected, minimum: min, maximum: max, bound: boundText(min, max) };
    }
    if (t.kind === 'primitive' && t.name === 'number') {
      // A number may be fractional, so an exclusive bound stays exclusive: only inclusive ones are emitted.
      if (bounds?.exclusiveMaximum !== undefined)
        specAt(this.ir, 'components.schemas').fail('exclusive-maximum-number', { field });
      const min = bounds?.minimum ?? null;
      const max = bounds?.maximum ?? null;
      return { kind: 'number', expected, minimum: min, maximum: max, bound: boundText(min, max, 'a number') };
    }
    if (t.kind === 'primitive' && t.name === 'boolean') return { kind: 'boolean', expected };
    const pattern = rules.find((r) => r.kind === 'pattern');
    const en = rules.find((r) => r.kind === 'enum');
    return {
      kind: 'string',
      expected,
      minLength: bounds?.minLength ?? null,
      maxLength: num(bounds?.maxLength),
      pattern: pattern?.kind === 'pattern' ? pattern.pattern : null,
      enum: en?.kind === 'enum' ? en.values : null,
    };
  }

  field(f: FieldIR) {
    return {
      name: f.name,
      required: f.required,
      value: this.value(f.type, f.rules, f.itemRules, f.expected, f.name),
    };
  }

  schema(name: string): SchemaIR {
    const s = this.ir.schemas.find((x) => x.name === name);
    if (!s) throw new Error(`events-mock-server: no schema ${name}`);
    return s;
  }

  object(name: string): void {
    if (this.objects.has(name)) return;
    const s = this.schema(name);
    this.objects.set(name, null);
    this.objects.set(name, {
      name,
      expected: this.expectedOf(name),
      unknownKeys: s.unknownKeys === 'request',
      fields: s.fields.map((f) => this.field(f)),
    });
    this.types.push(
      `/** ${name} after its checks (an array item that failed its own checks is undefined). */\nexport interface Checked${name} {\n${s.fields
        .map((f) => `  readonly ${f.name}${f.required ? '' : '?'}: ${this.tsType(f.type)};`)
        .join('\n')}\n}`,
    );
  }

  tsType(t: TypeIR): string {
    if (t.kind === 'array') {
      const item = this.tsType(t.items);
      return t.items.kind === 'ref' && t.items.target === 'object'
        ? `readonly (${item} | undefined)[]`
        : `readonly ${item}[]`;
    }
    if (t.kind === 'ref') return t.target === 'object' ? `Checked${t.name}` : 'string';
    return t.name === 'integer' || t.name === 'number' ? 'number' : t.name;
  }

  param(p: ParameterIR) {
    const integer = p.type.kind === 'primitive' && p.type.name === 'integer';
    const max = inclusiveMax(p.maximum, p.exclusiveMaximum);
    return {
      name: p.name,
      // An array parameter (style form, explode) is given repeated or comma-separated: a list of strings.
      kind: p.type.kind === 'array' ? 'list' : integer ? 'integer' : 'string',
      required: p.required,
      enum: p.enum ?? null,
      allowed: p.enum ? p.enum.join(' or ') : null,
      pattern: p.pattern ?? null,
      minimum: p.minimum ?? null,
      maximum: max,
      bound: boundText(p.minimum ?? null, max),
      default: p.default ?? null,
      aliasOf: p.aliasOf ?? null,
    };
  }

  queryType(op: OperationIR, name: string): string {
    const params = op.parameters.filter((p) => p.in === 'query' && !p.aliasOf);
    const fields = params.map((p) => {
      const t =
        p.type.kind === 'primitive' && p.type.name === 'integer'
          ? 'number'
          : p.type.kind === 'array'
            ? 'readonly string[]'
            : p.enum
              ? p.enum.map((v) => `'${v}'`).join(' | ')
              : 'string';
      return `  readonly ${p.name}${p.default !== undefined || p.required ? '' : '?'}: ${t};`;
    });
    return `/** Query of ${op.operationId} after its checks; an alias is folded into the name it stands for. */\nexport interface ${name} {\n${fields.join('\n')}\n}`;
  }
}

export function checksFile(dir: string, ir: IR): EmittedFile {
  const m = new ChecksModel(ir);
  const functions: string[] = [];
  const queries: Record<string, unknown> = {};
  const bodies = new Set<string>();
  // What the request gate hands each handler (C101): its checked query and body, by operationId.
  const queryOf: string[] = [];
  const bodyOf: string[] = [];
  for (const op of ir.operations) {
    // An alias is checked after the name it stands for, so it is compared with that name's value.
    const query = op.parameters
      .filter((p) => p.in === 'query')
      .sort((a, b) => Number(a.aliasOf !== undefined) - Number(b.aliasOf !== undefined));
    if (query.length) {
      for (const p of query)
        if (p.aliasOf && !query.some((x) => x.name === p.aliasOf))
          specAt(ir, 'paths', op.path, op.method, 'parameters').fail('alias-of-unknown', {
            name: p.name,
            aliasOf: p.aliasOf,
          });
      queries[op.operationId] = query.map((p) => m.param(p));
      const type = `${pascal(op.operationId)}Query`;
      m.types.push(m.queryType(op, type));
      queryOf.push(`  ${JSON.stringify(op.operationId)}: ${type};`);
      functions.push(
        `/** C2 row 400: the query of ${op.operationId}; problems are added to \`p\`. */\nexport function check${type}(q: unknown, p: RequestProblems): ${type} {\n  return checkQuery(QUERY_CHECKS[${JSON.stringify(op.operationId)}]!, q, p) as unknown as ${type};\n}`,
      );
    }
    const body = op.requestBody;
    const checked = body !== undefined && !m.schema(body).rules.some((r) => r.kind === 'dedup');
    if (checked) bodyOf.push(`  ${JSON.stringify(op.operationId)}: Checked${body};`);
    // One check function per body schema: operations sharing a schema (POST and PATCH) share it.
    if (checked && !bodies.has(body)) {
      bodies.add(body);
      m.object(body);
      functions.push(
        `/** C2 row 400: the ${body} body of ${op.operationId}; undefined once problems are added to \`p\`. */\nexport function check${body}(b: unknown, p: RequestProblems): Checked${body} | undefined {\n  return checkBody(OBJECT_CHECKS, ${JSON.stringify(body)}, b, p) as Checked${body} | undefined;\n}`,
      );
    }
  }
  m.problem('body_not_object', 'bodies');
  m.problem('unknown_top_level_key', 'bodies');
  const objects = Object.fromEntries([...m.objects].sort(([a], [b]) => (a < b ? -1 : 1)));
  const path = `${dir}/request-checks.gen.ts`;
  const statements: (string | StatementStructures)[] = [
    `import type { RequestProblems } from '../core/request-error.js';`,
    `import { checkBody, checkQuery, type ObjectCheck, type ParamCheck } from '../core/request-checks.js';`,
    constStatement(
      'OBJECT_CHECKS',
      objects,
      'Rules of every request body object (C2 row 400) keyed by schema name: fields, their kinds and bounds.',
      false,
    ),
    constStatement(
      'QUERY_CHECKS',
      queries,
      'Rules of the query parameters of each operation (C1, C2 row 400) keyed by operationId.',
      false,
    ),
    ...m.types,
    `/** The checked query of each operation that has one, as the request gate hands it to the handler (C101). */\nexport interface CheckedQueries {\n${queryOf.join('\n')}\n}`,
    `/** The checked body of each operation whose body the request gate checks (C101); the events batch is the validators'. */\nexport interface CheckedBodies {\n${bodyOf.join('\n')}\n}`,
    ...functions,
  ];
  const content = tsFile(path, statements)
    .replace(
      'export const OBJECT_CHECKS =',
      'export const OBJECT_CHECKS: Readonly<Record<string, ObjectCheck>> =',
    )
    .replace(
      'export const QUERY_CHECKS =',
      'export const QUERY_CHECKS: Readonly<Record<string, readonly ParamCheck[]>> =',
    );
  return { path, content };
}
