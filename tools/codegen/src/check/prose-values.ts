import type { IR, LimitIR } from '../ir/types.js';
import { TIME_UNITS } from '../kit/units.js';
import type { LoadedSpec } from '../load/load-spec.js';
import { SpecError } from '../load/spec-error.js';
import { ownLimitKey } from '../model/prose.js';

/**
 * C108: prose fields of the spec must take a limit's value from limits.yaml (`{limit:KEY}`, `{value}`), not
 * write it out. The fields, and what counts as a written-out value, are listed in the decision record.
 */
const OPENAPI_PROSE = new Set(['description', 'summary', 'x-expected']);
const DATA_PROSE = new Set([
  'description',
  'summary',
  'purpose',
  'when',
  'fix',
  'message',
  'template',
  'topic',
  'service',
  'reason',
]);

/** Seconds per time unit a quantity may be written in. */
const TIME: Record<string, number> = { ms: 0.001, s: 1, min: 60, h: 3600, day: 86400, week: 604800 };
/** Bytes per size unit. */
const SIZE: Record<string, number> = {
  B: 1,
  KiB: 1024,
  MiB: 1024 ** 2,
  GiB: 1024 ** 3,
  KB: 1e3,
  MB: 1e6,
  GB: 1e9,
};
const UNIT_WORDS: [RegExp, string][] = [
  [/^(?:milliseconds?|ms)$/, 'ms'],
  [/^(?:seconds?|secs?|s)$/, 's'],
  [/^(?:minutes?|mins?)$/, 'min'],
  [/^(?:hours?|h)$/, 'h'],
  [/^days?$/, 'day'],
  [/^weeks?$/, 'week'],
  [/^bytes?$/, 'B'],
  [/^(?:KiB|MiB|GiB|KB|MB|GB)$/, ''],
  [/^(?:characters?|chars?)$/, 'characters'],
];

/**
 * A number in digits standing alone: not inside a word, an identifier, a version, a date or a time of day
 * (`SHA-256`, `C100`, `IPv4`, `5.23`, `Mozilla/5.0`, `2026-09-24`, `12:00`). Numbers in words are left
 * out: "one hour" is as often one bucket or one item as a limit.
 */
const NUMBER = /(?<![\w.,/#^+:-])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(?![\w^]|[.,:]\d|-\d)/g;
const UNIT_AFTER = /^[\s-]([A-Za-z]+)\b/;
/** `1,000 a day`, `100 requests per second`: a rate, which no limit is. */
const RATE_AFTER = /^(?:\s[a-z]+)?\s(?:a|an|per)\s(?:second|minute|hour|day|week)\b/;
/** A number after these words is a reference (seed 8 rule 4, issue 21, RFC 7493, OpenAPI 5.23). */
const REFERENCE_BEFORE = /\b(?:seed|rule|issue|RFC|OpenAPI|version|section|file|point)\s+$/i;

export interface ProseValue {
  file: string;
  /** The field, as `pnpm gen` names paths elsewhere. */
  path: string;
  /** The number and its unit as written. */
  written: string;
  /** The limits whose value it equals; the first is the one the suggestion names. */
  limits: string[];
  /** The template to write instead. */
  template: string;
}

/** Code spans, quoted texts and templates are blanked out (offsets kept): they write no value of ours. */
function masked(text: string): string {
  const blank = (m: string) => ' '.repeat(m.length);
  return text
    .replace(/`[^`]*`/g, blank)
    .replace(/"[^"\n]*"/g, blank)
    .replace(/\{[^{}]*\}/g, blank);
}

function unitOf(word: string): string | undefined {
  for (const [re, unit] of UNIT_WORDS) if (re.test(word)) return unit || word;
  return undefined;
}

const BARE_LIMIT: LimitIR['unit'][] = ['count', 'characters', 'decimal'];
const seconds = (l: LimitIR) => (l.unit === 'milliseconds' ? l.value / 1000 : l.value);
const same = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));

/** The limits a number written in prose stands for, or none when it is no limit's value written out. */
function matches(token: string, after: string, before: string, limits: LimitIR[], statuses: Set<number>) {
  if (REFERENCE_BEFORE.test(before) || RATE_AFTER.test(after)) return undefined;
  const n = Number(token.replace(/,/g, ''));
  const unitWord = UNIT_AFTER.exec(after)?.[1];
  const unit = unitWord === undefined ? undefined : unitOf(unitWord);
  const written =
    unit === undefined || unitWord === undefined
      ? token
      : `${token}${after.slice(0, 1 + unitWord.length).replace(/\s/, ' ')}`;
  const format = token.includes(',') ? '|grouped' : '';
  const of = (keep: (l: LimitIR) => boolean, f = format) => ({
    written,
    format: f,
    found: limits.filter(keep),
  });
  if (unit !== undefined && unit in TIME)
    return of((l) => TIME_UNITS.includes(l.unit) && same(seconds(l), n * (TIME[unit] ?? 0)), '|duration');
  if (unit !== undefined && unit in SIZE)
    return of((l) => l.unit === 'bytes' && l.value === n * (SIZE[unit] ?? 0), '');
  if (unit === 'characters') return of((l) => l.unit === 'characters' && l.value === n);
  // Small integers are ordinals, digits and list counts everywhere in prose; statuses are statuses.
  if (Number.isInteger(n) && (n < 100 || statuses.has(n))) return undefined;
  return of((l) => BARE_LIMIT.includes(l.unit) && same(l.value, n));
}

/** What a reader of prose needs to tell a limit's value from other numbers. */
export interface ProseContext {
  limits: LimitIR[];
  /** HTTP statuses the spec answers: a bare `400` is a status, whatever the limits hold. */
  statuses: Set<number>;
}

/** The limit values written out in one text; `own` is the limit whose description it is, if any. */
export function valuesIn(
  text: string,
  own: string | undefined,
  ctx: ProseContext,
): Omit<ProseValue, 'file' | 'path'>[] {
  const m = masked(text);
  const out: Omit<ProseValue, 'file' | 'path'>[] = [];
  for (const hit of m.matchAll(NUMBER)) {
    const token = hit[1] ?? '';
    const at = hit.index ?? 0;
    const after = m.slice(at + token.length);
    const found = matches(token, after, m.slice(Math.max(0, at - 20), at), ctx.limits, ctx.statuses);
    if (!found?.found.length) continue;
    const keys = found.found.map((l) => l.key);
    const first = own && keys.includes(own) ? own : (keys[0] ?? '');
    out.push({
      written: found.written,
      limits: [first, ...keys.filter((k) => k !== first)],
      template: first === own ? `{value${found.format}}` : `{limit:${first}${found.format}}`,
    });
  }
  return out;
}

function walk(
  value: unknown,
  path: string,
  key: string,
  parent: string,
  visit: (s: string, path: string, key: string, parent: string) => void,
): void {
  if (typeof value === 'string') visit(value, path, key, parent);
  else if (Array.isArray(value))
    for (const [i, v] of value.entries()) walk(v, `${path}[${i}]`, key, parent, visit);
  else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) walk(v, path ? `${path}.${k}` : k, k, key, visit);
}

/** Every limit value written out in a prose field of the spec as loaded (before its templates are rendered). */
export function findProseValues(
  spec: LoadedSpec,
  ir: Pick<IR, 'limits' | 'operations' | 'requestErrors'>,
): ProseValue[] {
  const statuses = new Set([
    ...ir.requestErrors.map((e) => e.status),
    ...ir.operations.flatMap((o) => o.responses.map((r) => Number(r.status))).filter(Number.isInteger),
  ]);
  const ctx = { limits: ir.limits, statuses };
  const out: ProseValue[] = [];
  const scan = (file: string, path: string, text: string, own?: string) => {
    for (const v of valuesIn(text, own, ctx)) out.push({ file, path, ...v });
  };
  walk(spec.openapi, '', '', '', (s, path, key) => {
    if (OPENAPI_PROSE.has(key)) scan(spec.openapiFile, path, s);
  });
  for (const d of Object.values(spec.data))
    walk(d.value, '', '', '', (s, path, key, parent) => {
      if (!DATA_PROSE.has(key) && parent !== 'reasons') return;
      scan(d.file, path, s, ownLimitKey(spec, d.file, path));
    });
  return out;
}

const names = (keys: string[]) =>
  keys.length === 1
    ? `limit ${keys[0]}`
    : `limits ${keys.slice(0, -1).join(', ')} and ${keys[keys.length - 1]}`;

/** Fails `pnpm gen` on the first limit value written out in prose, naming the others too. */
export function checkProseValues(
  spec: LoadedSpec,
  ir: Pick<IR, 'limits' | 'operations' | 'requestErrors'>,
): void {
  const [first, ...rest] = findProseValues(spec, ir);
  if (!first) return;
  const others = rest.map((v) => `${v.file} ${v.path} "${v.written}"`);
  throw new SpecError(first.file, first.path, 'limit-value-in-prose', {
    written: first.written,
    limits: names(first.limits),
    template: first.template,
    alternative: first.limits.length > 1 ? ' (or the key of the one meant)' : '',
    others: others.length ? `; also ${others.join(', ')}` : '',
  });
}
