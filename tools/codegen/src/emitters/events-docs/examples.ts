import type { FieldIR, IR, SchemaIR, TypeIR } from '../../ir/types.js';
import { type DocsContext, objectRef } from './context.js';
import { type WorkedExample, workedExamples } from './normalize.js';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Obj = { [k: string]: Json };

export interface EventResult {
  status: 'processed' | 'failed';
  error_message: string | null;
  warning_message: string | null;
}

export interface BatchResponse {
  num_events_received: number;
  num_events_processed: number;
  events: EventResult[];
}

export interface RequestExample {
  name: string;
  title: string;
  description: string;
  request: { data: Obj[] };
  response: BatchResponse;
}

/**
 * C125: the "Running as a gateway" page's example: one event whose user data a sender could not hash, as
 * sent and as an account with `hash_user_data: true` checks it (the raw values replaced by the SHA-256 of
 * their C5 normalization), with its warnings and match quality (C67) on each kind of account.
 * packages/events-docs/test/gateway.test.ts checks them against the validators.
 */
export interface GatewayExample {
  raw: Obj;
  hashed: Obj;
  /** The fields whose values were raw, as paths (`user_data.em`). */
  fields: string[];
  /** On an account without the setting (Pinterest's behaviour), and on one with it. */
  before: { warnings: string[]; score: number };
  after: { warnings: string[]; score: number };
}

/** What public/examples.json holds; packages/events-docs/test/examples.test.ts runs it through the validators. */
export interface ExamplesFile {
  /** The validation context the documented responses assume (validateBatch options). */
  context: { now: number; currency: string; customEventNames: string[] };
  adAccountId: string;
  serverUrl: string;
  examples: RequestExample[];
  normalization: WorkedExample[];
  gateway: GatewayExample;
  /** Fields whose spec example does not fit the field's type, or required fields without one; left out. */
  specGaps: string[];
}

/** Reads a value from the resolved OpenAPI document (plain data). */
export function dig(ir: IR, ...path: string[]): unknown {
  let v: unknown = ir.openapi;
  for (const k of path) v = v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined;
  return v;
}

function fits(v: unknown, t: TypeIR, nullable: boolean, ctx: DocsContext): boolean {
  if (v === null) return nullable;
  switch (t.kind) {
    case 'primitive':
      if (t.name === 'integer') return Number.isInteger(v);
      return typeof v === t.name;
    case 'array':
      return Array.isArray(v) && v.every((x) => fits(x, t.items, false, ctx));
    case 'ref':
      if (t.target === 'enum') return typeof v === 'string' && ctx.enumValues(t.name).includes(v);
      return typeof v === 'object' && !Array.isArray(v);
  }
}

/** An object assembled from the `example` of every field that has one (objects recursively). */
function assemble(s: SchemaIR, prefix: string, ctx: DocsContext, gaps: string[]): Obj {
  const out: Obj = {};
  for (const f of s.fields) {
    if (f.example !== undefined) {
      if (fits(f.example, f.type, f.nullable, ctx)) {
        out[f.name] = f.example as Json;
        continue;
      }
      gaps.push(`${prefix}${f.name}: example ${JSON.stringify(f.example)} is not ${f.expected}`);
    }
    const ref = objectRef(f.type);
    if (ref) {
      const inner = assemble(
        ctx.schema(ref),
        `${prefix}${f.name}${f.type.kind === 'array' ? '[]' : ''}.`,
        ctx,
        gaps,
      );
      if (Object.keys(inner).length) out[f.name] = f.type.kind === 'array' ? [inner] : inner;
    } else if (f.required && f.type.kind === 'ref' && f.type.target === 'enum') {
      out[f.name] = ctx.enumValues(f.type.name)[0]!;
    } else if (f.required) {
      gaps.push(`${prefix}${f.name}: required, but has no example`);
    }
  }
  return out;
}

/**
 * Fills a message template: `{name}` takes a parameter; `[[ ... ]]` is kept only when every parameter
 * inside it is given (spec/data/messages.yaml).
 */
export function fill(template: string, params: Record<string, string>): string {
  const sub = (s: string) => s.replace(/\{(\w+)\}/g, (_, k: string) => params[k] ?? `{${k}}`);
  return sub(
    template.replace(/\[\[(.*?)\]\]/g, (_, inner: string) =>
      [...inner.matchAll(/\{(\w+)\}/g)].every((m) => m[1]! in params) ? inner : '',
    ),
  );
}

function get(o: Obj, path: string): Json | undefined {
  let v: Json | undefined = o;
  for (const k of path.split('.')) v = v && typeof v === 'object' && !Array.isArray(v) ? v[k] : undefined;
  return v;
}

/**
 * The recommended_missing advice of C88 for an example event, or undefined: the recommended fields that
 * apply to the event, weighed; below the threshold, the missing ones of highest weight (field order on ties).
 */
function recommendedAdvice(event: Obj, ctx: DocsContext): string | undefined {
  const as = event.action_source;
  const name = event.event_name;
  const missing: { path: string; weight: number }[] = [];
  let total = 0;
  for (const sec of ctx.sections) {
    if (sec.prefix.includes('[]')) continue;
    for (const f of sec.schema.fields) {
      const r = f.recommended;
      if (!r) continue;
      if (r.actionSources !== 'all' && !r.actionSources.includes(String(as))) continue;
      if (r.eventNames && !r.eventNames.includes(String(name))) continue;
      total += r.weight;
      const path = `${sec.prefix}${f.name}`;
      if (get(event, path) === undefined) missing.push({ path, weight: r.weight });
    }
  }
  const lacking = missing.reduce((n, m) => n + m.weight, 0);
  if (total === 0 || 1 - lacking / total >= ctx.limit('recommended_warning_score_below').value)
    return undefined;
  const names = missing
    .map((m, k) => ({ ...m, k }))
    .sort((a, b) => b.weight - a.weight || a.k - b.k)
    .slice(0, ctx.limit('recommended_warning_fields_max').value)
    .map((m) => m.path);
  return fill(ctx.message('recommended_missing').template, { fields: names.join(', ') });
}

function warningList(event: Obj, ctx: DocsContext, extra: string[] = []): string[] {
  const list = [...extra];
  const advice = recommendedAdvice(event, ctx);
  if (advice !== undefined) list.push(advice);
  return list;
}

function warnings(event: Obj, ctx: DocsContext, extra: string[] = []): string | null {
  const list = warningList(event, ctx, extra);
  return list.length ? list.join('; ') : null;
}

const present = (v: Json | undefined) =>
  v !== undefined && v !== null && v !== '' && !(Array.isArray(v) && v.length === 0);

/**
 * The match quality of C67 for an example event: the weighted share of the recommended fields that apply to
 * it which it carries, a field of `notWellFormed` (a raw value in a hashed field) counting as not carried.
 */
function matchScore(event: Obj, ctx: DocsContext, notWellFormed: ReadonlySet<string>): number {
  let total = 0;
  let carried = 0;
  for (const sec of ctx.sections) {
    if (sec.prefix.includes('[]')) continue;
    for (const f of sec.schema.fields) {
      const r = f.recommended;
      if (!r) continue;
      if (r.actionSources !== 'all' && !r.actionSources.includes(String(event.action_source))) continue;
      if (r.eventNames && !r.eventNames.includes(String(event.event_name))) continue;
      total += r.weight;
      const path = `${sec.prefix}${f.name}`;
      if (present(get(event, path)) && !notWellFormed.has(path)) carried += r.weight;
    }
  }
  return total === 0 ? 1 : carried / total;
}

/**
 * C125: an event from a sender that cannot hash: the example event's identifiers that are sent as they are
 * (an IP address, a user agent), and raw values for the hashed fields a checkout form or a CRM export has
 * (e-mail, phone, first and last name), from the worked examples of C5.
 */
function gatewayExample(event: Obj, ctx: DocsContext): GatewayExample {
  const holder = ctx.sections.find((s) => s.via && s.schema.fields.some((f) => f.normalize));
  const prefix = holder?.prefix ?? 'user_data.';
  const member = prefix.slice(0, -1);
  const normalizers = Object.fromEntries(
    (holder?.schema.fields ?? []).filter((f) => f.normalize).map((f) => [f.name, f.normalize!]),
  );
  const names = ['em', 'ph', 'fn', 'ln'].filter((n) => n in normalizers);
  const worked = workedExamples(
    ctx.ir,
    names.map((name) => ({ name, normalize: normalizers[name]! })),
  );
  const sent = (event[member] ?? {}) as Obj;
  const plain = Object.fromEntries(Object.entries(sent).filter(([k]) => !(k in normalizers)));
  const raw: Obj = {
    ...event,
    [member]: { ...Object.fromEntries(worked.map((w) => [w.field, [w.raw]])), ...plain },
  };
  const hashed: Obj = {
    ...event,
    [member]: { ...Object.fromEntries(worked.map((w) => [w.field, [w.sha256]])), ...plain },
  };
  const fields = worked.map((w) => `${prefix}${w.field}`);
  const dropped = fields.map((path) => fill(ctx.message('hash_dropped').template, { path: `${path}[0]` }));
  return {
    raw,
    hashed,
    fields,
    before: { warnings: warningList(raw, ctx, dropped), score: matchScore(raw, ctx, new Set(fields)) },
    after: { warnings: warningList(hashed, ctx), score: matchScore(hashed, ctx, new Set()) },
  };
}

function field(s: SchemaIR, name: string): FieldIR | undefined {
  return s.fields.find((f) => f.name === name);
}

/** The next identifier after an example one: `order-1234` -> `order-1235`. */
function nextId(id: string, n: number): string {
  return /\d+$/.test(id) ? id.replace(/\d+$/, (d) => String(Number(d) + n)) : `${id}-${n + 1}`;
}

/** The example of the events endpoint's path parameter, from components.parameters of the OpenAPI document. */
function pathParamExample(ctx: DocsContext): string {
  const p = ctx.eventsOp.parameters.find((x) => x.in === 'path');
  const params = (dig(ctx.ir, 'components', 'parameters') ?? {}) as Record<
    string,
    { name?: string; example?: unknown }
  >;
  const hit = Object.values(params).find((x) => x.name === p?.name && x.example !== undefined);
  return hit ? String(hit.example) : '1';
}

export function buildExamples(ctx: DocsContext): ExamplesFile {
  const { ir } = ctx;
  const gaps: string[] = [];
  const event = assemble(ctx.eventSchema, '', ctx, gaps);
  const eventTime = Number(event.event_time);
  const currency = String(field(ctx.schema('CustomData'), 'currency')?.example ?? '');
  const context = { now: eventTime + 60, currency, customEventNames: [] as string[] };

  const full: RequestExample = {
    name: 'full',
    title: 'A full request',
    description: 'One event with every field the spec gives an example for.',
    request: { data: [event] },
    response: {
      num_events_received: 1,
      num_events_processed: 1,
      events: [{ status: 'processed', error_message: null, warning_message: warnings(event, ctx) }],
    },
  };

  // Partial failure (seed 4.1 rule 1): the same event, then one whose event_name is the example name with a
  // capital letter (C4: `Checkout` -> `checkout`), then one that sends a raw email instead of its hash.
  const id = String(event.event_id);
  const name = String(event.event_name);
  const badName = name.charAt(0).toUpperCase() + name.slice(1);
  const second: Obj = { ...event, event_id: nextId(id, 1), event_name: badName };
  const em = ctx.sections.find((s) => s.via?.name === 'user_data');
  const rawEmail = workedExamples(ir, [{ name: 'em', normalize: 'email' }])[0]!.raw.trim();
  const third: Obj = {
    ...event,
    event_id: nextId(id, 2),
    user_data: { ...(event.user_data as Obj), em: [rawEmail] },
  };
  const examples = ir.eventNames.suggestedExamples.join(', ');
  const hashPath = `${em?.prefix ?? 'user_data.'}em[0]`;
  const partial: RequestExample = {
    name: 'partial-failure',
    title: 'A partial failure',
    description:
      'Three events: the first is processed, the second fails (its event_name is not a standard name), the third is processed with a warning (a raw email instead of its hash). The batch still answers 200 (C3).',
    request: { data: [event, second, third] },
    response: {
      num_events_received: 3,
      num_events_processed: 2,
      events: [
        full.response.events[0]!,
        {
          status: 'failed',
          error_message: fill(ctx.message('invalid_event_name').template, {
            name: badName,
            examples,
            suggestion: name,
          }),
          warning_message: warnings(second, ctx),
        },
        {
          status: 'processed',
          error_message: null,
          warning_message: warnings(third, ctx, [
            fill(ctx.message('hash_dropped').template, { path: hashPath }),
          ]),
        },
      ],
    },
  };

  const hashed = ctx.sections.flatMap((s) =>
    s.schema.fields
      .filter((f) => f.normalize)
      .map((f) => ({ name: `${s.prefix}${f.name}`, normalize: f.normalize! })),
  );
  return {
    context,
    adAccountId: pathParamExample(ctx),
    serverUrl: String((dig(ir, 'servers') as { url?: string }[] | undefined)?.[0]?.url ?? ''),
    examples: [full, partial],
    normalization: workedExamples(ir, hashed),
    gateway: gatewayExample(event, ctx),
    specGaps: gaps,
  };
}
