import type { RequestProblem } from '../generated/request-problems.gen.js';
import { type RequestProblems, received } from './request-error.js';

/**
 * The rule kinds of request-level checks (C2 row 400) of the bodies and queries other than the events
 * batch. The rules themselves (fields, bounds, patterns, enums, aliases) are spec data emitted into
 * src/generated/request-checks.gen.ts; every problem is a keyed row of spec/data/request-errors.yaml (C30).
 */

export type ValueCheck =
  | {
      kind: 'string';
      expected: string;
      minLength: number | null;
      maxLength: number | null;
      pattern: string | null;
      enum: readonly string[] | null;
    }
  | { kind: 'integer'; expected: string; minimum: number | null; maximum: number | null; bound: string }
  | { kind: 'number'; expected: string; minimum: number | null; maximum: number | null; bound: string }
  | { kind: 'boolean'; expected: string }
  | { kind: 'object'; schema: string }
  | {
      kind: 'array';
      expected: string;
      minItems: number | null;
      maxItems: number | null;
      /** The keyed problems of this array, named after it as the events batch names its own. */
      problems: {
        missing: RequestProblem;
        notArray: RequestProblem;
        empty: RequestProblem;
        tooMany: RequestProblem;
      };
      items: ValueCheck;
    };

export interface FieldCheck {
  name: string;
  required: boolean;
  value: ValueCheck;
}

export interface ObjectCheck {
  name: string;
  expected: string;
  /** Whether an unknown key is a problem (`x-unknown-keys: request`). */
  unknownKeys: boolean;
  fields: readonly FieldCheck[];
}

export interface ParamCheck {
  name: string;
  /** `list`: an array parameter, given repeated or comma-separated (style form, explode). */
  kind: 'string' | 'integer' | 'list';
  required: boolean;
  enum: readonly string[] | null;
  /** The enum values in words, for `invalid_query_value`. */
  allowed: string | null;
  pattern: string | null;
  minimum: number | null;
  maximum: number | null;
  bound: string;
  default: string | number | boolean | null;
  /** The parameter this one is another name of; both given must agree. */
  aliasOf: string | null;
}

const INVALID = Symbol('invalid');
const patterns = new Map<string, RegExp>();
/** Whether `s` matches a pattern of the spec; each pattern is compiled once, on first use. */
export function matches(pattern: string, s: string): boolean {
  let re = patterns.get(pattern);
  if (re === undefined) {
    re = new RegExp(pattern, 'u');
    patterns.set(pattern, re);
  }
  return re.test(s);
}

const at = (path: string, name: string) => (path === '' ? name : `${path}.${name}`);
const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function checkValue(
  table: Readonly<Record<string, ObjectCheck>>,
  c: ValueCheck,
  v: unknown,
  path: string,
  p: RequestProblems,
): unknown {
  switch (c.kind) {
    case 'string':
      if (typeof v !== 'string' || (c.enum !== null && !c.enum.includes(v)))
        p.add('field_invalid', path, { expected: c.expected, received: received(v) });
      else if (c.minLength !== null && v.length < c.minLength)
        p.add('string_empty', path, { expected: c.expected });
      else if (c.maxLength !== null && v.length > c.maxLength)
        p.add('string_too_long', path, { length: v.length, max: c.maxLength });
      else if (c.pattern !== null && !matches(c.pattern, v))
        p.add('field_invalid', path, { expected: c.expected, received: received(v) });
      else return v;
      return INVALID;
    case 'integer':
      if (typeof v !== 'number' || !Number.isSafeInteger(v))
        p.add('field_invalid', path, { expected: c.expected, received: received(v) });
      else if ((c.minimum !== null && v < c.minimum) || (c.maximum !== null && v > c.maximum))
        p.add('number_out_of_range', path, { bound: c.bound, received: received(v) });
      else return v;
      return INVALID;
    case 'number':
      if (typeof v !== 'number' || !Number.isFinite(v))
        p.add('field_invalid', path, { expected: c.expected, received: received(v) });
      else if ((c.minimum !== null && v < c.minimum) || (c.maximum !== null && v > c.maximum))
        p.add('number_out_of_range', path, { bound: c.bound, received: received(v) });
      else return v;
      return INVALID;
    case 'boolean':
      if (typeof v === 'boolean') return v;
      p.add('field_invalid', path, { expected: c.expected, received: received(v) });
      return INVALID;
    case 'object': {
      const o = checkObject(table, c.schema, v, path, p);
      return o === undefined ? INVALID : o;
    }
    case 'array':
      if (!Array.isArray(v)) p.add(c.problems.notArray, path, { received: received(v) });
      else if (c.minItems !== null && v.length < c.minItems)
        p.add(c.problems.empty, path, { min: c.minItems });
      else if (c.maxItems !== null && v.length > c.maxItems)
        p.add(c.problems.tooMany, path, { max: c.maxItems, count: v.length });
      else
        return v.map((x, i) => {
          const r = checkValue(table, c.items, x, `${path}[${i}]`, p);
          return r === INVALID ? undefined : r;
        });
      return INVALID;
  }
}

function checkObject(
  table: Readonly<Record<string, ObjectCheck>>,
  name: string,
  v: unknown,
  path: string,
  p: RequestProblems,
): Record<string, unknown> | undefined {
  const c = table[name];
  if (c === undefined) throw new RangeError(`no object check ${name}`);
  if (!isObject(v)) {
    if (path === '') p.add('body_not_object', 'body', { received: received(v), fields: allowed(c) });
    else p.add('item_not_object', path, { expected: c.expected, received: received(v) });
    return undefined;
  }
  if (c.unknownKeys)
    for (const k of Object.keys(v))
      if (!c.fields.some((f) => f.name === k)) {
        if (path === '') p.add('unknown_top_level_key', k, { allowed: allowed(c) });
        else p.add('unknown_field', at(path, k), { object: c.name, allowed: allowed(c) });
      }
  const out: Record<string, unknown> = {};
  let ok = true;
  for (const f of c.fields) {
    const fv = v[f.name];
    const fp = at(path, f.name);
    if (fv === undefined) {
      if (f.required) {
        ok = false;
        if (f.value.kind === 'array') p.add(f.value.problems.missing, fp, {});
        else p.add('field_missing', fp, { expected: 'expected' in f.value ? f.value.expected : f.name });
      }
      continue;
    }
    const r = checkValue(table, f.value, fv, fp, p);
    if (r === INVALID) ok = false;
    else out[f.name] = r;
  }
  return ok ? out : undefined;
}

const allowed = (c: ObjectCheck) => c.fields.map((f) => f.name).join(', ');

/**
 * A request body against the table of its schema: the checked copy, or undefined when a problem of the
 * body or of one of its own fields was added to `p` (items of an array that fail are undefined in the copy,
 * so a route can still check the others).
 */
export function checkBody(
  table: Readonly<Record<string, ObjectCheck>>,
  schema: string,
  b: unknown,
  p: RequestProblems,
): Record<string, unknown> | undefined {
  return checkObject(table, schema, b, '', p);
}

const INTEGER = /^-?\d{1,16}$/;

/**
 * A parsed query string against the parameters of its operation: values converted to their types, with
 * defaults, and each alias folded into the name it stands for. A parameter given twice arrives as an array.
 */
export function checkQuery(
  params: readonly ParamCheck[],
  query: unknown,
  p: RequestProblems,
): Record<string, string | number | boolean | readonly string[]> {
  const q = isObject(query) ? query : {};
  const out: Record<string, string | number | boolean | readonly string[]> = {};
  for (const c of params) {
    const v = q[c.name];
    const path = `query.${c.name}`;
    if (c.kind === 'list') {
      const values = (Array.isArray(v) ? v : v === undefined ? [] : [v]).map(String);
      const items = values.flatMap((s) => s.split(',')).filter((s) => s !== '');
      if (items.length) out[c.name] = items;
      else if (c.required) p.add('field_missing', path, { expected: c.name });
      continue;
    }
    if (v === undefined) {
      if (c.default !== null) out[c.name] = c.default;
      else if (c.required) p.add('field_missing', path, { expected: c.name });
      continue;
    }
    if (Array.isArray(v)) {
      p.add('query_repeated', path, { count: v.length });
      continue;
    }
    let value: string | number;
    if (c.kind === 'integer') {
      const n = typeof v === 'string' && INTEGER.test(v) ? Number(v) : Number.NaN;
      if (Number.isNaN(n) || (c.minimum !== null && n < c.minimum) || (c.maximum !== null && n > c.maximum)) {
        p.add('number_out_of_range', path, { bound: c.bound, received: received(v) });
        continue;
      }
      value = n;
    } else {
      const s = String(v);
      if ((c.enum !== null && !c.enum.includes(s)) || (c.pattern !== null && !matches(c.pattern, s))) {
        p.add('invalid_query_value', path, { allowed: c.allowed ?? c.pattern ?? '', received: received(s) });
        continue;
      }
      value = s;
    }
    if (c.aliasOf === null) out[c.name] = value;
    else if (out[c.aliasOf] === undefined || q[c.aliasOf] === undefined) out[c.aliasOf] = value;
    else if (out[c.aliasOf] !== value) p.add('query_alias_disagrees', path, { alias: c.aliasOf });
  }
  return out;
}
