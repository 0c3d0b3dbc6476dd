import { hash } from 'node:crypto';
import type { BatchResponse, EventResult } from '@org/events-types';
import { LIMITS, PROBLEM_CODES } from '@org/events-types';
import {
  type EventProblems,
  formatMessage,
  type HashedOnArrival,
  hashUserDataInPlace,
  type Problem,
  personalDataPaths,
  readsAsContact,
  redactedText,
  redactJson,
  refusedPaths,
  replaceWarnings,
  type ValidationContext,
  validateBatch,
} from '@org/events-validators';
import type { ByteSpan } from '../store/interface/events.js';
import { countMembers, scanLight } from './json-light-scan.js';
import { type DataElement, type ScanProblem, scanBody } from './json-scan.js';

/** An accepted event, ready to store: its dedup key, event_time and JSON as accepted (C11). */
export interface PreparedEvent {
  index: number;
  eventName: string;
  eventId: string;
  eventTime: number;
  /**
   * The event as accepted, as JSON: its span of the body when those are its exact bytes, else its text;
   * empty when not asked for (test mode stores nothing).
   */
  json: string | ByteSpan;
}

/**
 * What prepareBatch knows of the request beyond the validators' context: whether the ad account hashes raw
 * user data on arrival (C125, `hash_user_data`). Plain data, so it crosses to a validation thread with the
 * rest of the context.
 */
export interface PrepareContext extends ValidationContext {
  hashUserData?: boolean;
}

/**
 * What the request log may keep of an accepted batch's body (C70), decided where the body was read: the bytes
 * as sent, the bytes with some spans replaced (events holding values refused or dropped as personal data), or
 * nothing (the events could not be located in the bytes).
 */
export type KeptBody =
  | { kind: 'as_sent' }
  | { kind: 'spliced'; spans: { start: number; end: number; text: string }[] }
  | { kind: 'none' };

/**
 * The answer of C3 as it leaves the thread that validated the batch: its JSON, made there, and beside it only
 * what the event loop reads. A 1000-event batch crosses as one string and a few results, not as a thousand
 * objects to copy and serialize again on the event loop (issue 25).
 */
export interface PreparedAnswer {
  received: number;
  processed: number;
  /** The results other than a plain processed one (failed, or with a warning), by index, ascending. */
  notable: [number, EventResult][];
  /** The whole BatchResponse as JSON. */
  json: string;
}

/**
 * Everything the events endpoint needs from a body, after JSON.parse and the validators: plain data, so
 * it can be computed in a worker thread and posted back (see pool.ts).
 */
export type Prepared =
  | { kind: 'json_error'; reason: string }
  /** The bytes break a rule of C35-C37 (UTF-8, surrogates, depth, members, a repeated top-level name). */
  | { kind: 'bytes_error'; problem: ScanProblem }
  | {
      kind: 'invalid';
      status: number;
      error: { code: number; message: string; details: { path: string; problem: string }[] };
    }
  | {
      kind: 'ok';
      kept: KeptBody;
      answer: PreparedAnswer;
      events: PreparedEvent[];
      failures: { eventName: string; codes: string[] }[];
      /** Problems of accepted events that have warnings (sparse): what appendWarning needs for them. */
      problems: [number, EventProblems][];
      /** Indexes the validators already warned as duplicates within the batch (C6). */
      warnedDuplicates: number[];
      /** For the request log (C60): the field paths each event's problems name (sparse). */
      fields: [number, string[]][];
      /** For the request log (C60): the distinct event names of the body, in order of first appearance. */
      names: string[];
      /**
       * C125: the user_data fields whose raw values the service normalized and hashed on arrival (sparse;
       * empty unless the account hashes), as paths from the event (`user_data.em`).
       */
      hashed: [number, string[]][];
      /**
       * C125: the body with digests in place of the raw values hashed on arrival, when it could be made
       * (see digestedBody): from here it is the request's body, stored, logged and kept instead of the bytes
       * received, and every span above (events, kept body) is of it. Absent when nothing was hashed.
       */
      body?: Buffer;
    };

/**
 * Failed events are counted under their event_name (C11); cut to the longest valid name so junk names cannot
 * grow the counters.
 */
const MAX_COUNTED_NAME = LIMITS.custom_event_name_max_length.value;

/**
 * The name a failed event is counted and logged under (C11, C60): cut to the longest valid name, and a name
 * that reads as a contact (an e-mail address sent as event_name) as its shape only (C117).
 */
function countedName(name: string): string {
  return readsAsContact(name) ? redactedText(name) : name.slice(0, MAX_COUNTED_NAME);
}

const SCAN_LIMITS = { maxDepth: LIMITS.json_max_depth.value, maxMembers: LIMITS.json_max_members.value };

/**
 * The byte scan of C35-C37, JSON.parse, the per-event rules of @org/events-validators (C3-C6, the same code
 * integrators run), and the JSON of each accepted event. An event accepted unchanged, with no repeated
 * member name and only numbers every reader holds alike, is stored as the bytes the client sent; any other
 * accepted event is serialized from the value the rules accepted (C36).
 */
export function prepareBatch(raw: Buffer, ctx: PrepareContext, withJson: boolean): Prepared {
  // C35-C37 in one flat pass; the full scan only where it has something to say (escapes, a repeated name).
  const light = scanLight(raw, SCAN_LIMITS);
  if (!light.ok) {
    const { ok: _, ...problem } = light;
    return { kind: 'bytes_error', problem };
  }
  let elements: DataElement[] | null = null;
  if (light.unicodeEscapes) {
    const scan = scanBody(raw, SCAN_LIMITS);
    if (!scan.ok) {
      const { ok: _, ...problem } = scan;
      return { kind: 'bytes_error', problem };
    }
    elements = scan.elements;
  }
  const text = raw.toString('utf8');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (e) {
    return { kind: 'json_error', reason: text === '' ? 'the body is empty' : (e as Error).message };
  }
  if (!light.unicodeEscapes) elements = elementsOf(raw, body, light.elements);
  // C125: raw values become digests here, before any rule, log line or store sees the event.
  const arrival = ctx.hashUserData === true ? hashOnArrival(body) : null;
  let eventErrors: Map<number, Problem[]> | undefined;
  if (elements)
    for (let i = 0; i < elements.length; i++) {
      const path = elements[i]?.duplicate;
      if (path == null) continue;
      eventErrors ??= new Map();
      eventErrors.set(i, [
        { path, code: 'member_repeated', message: formatMessage('member_repeated', { path }) },
      ]);
    }
  const result = validateBatch(body, ctx, eventErrors ? { eventErrors } : {});
  if (!result.ok) return { kind: 'invalid', status: result.status, error: result.error };
  const data = (body as { data: unknown[] }).data;
  const hashed: [number, string[]][] = [];
  if (arrival)
    for (const [i, h] of arrival) {
      if (h.hashed.length) hashed.push([i, h.hashed]);
      if (h.unusable.length)
        notNormalizable(result.response.events[i] as EventResult, result.problems[i] as EventProblems, h);
    }
  // C125: the digests spliced into one copy of the body, so each event is stored as its span of it and the
  // kept body is that copy, as for a batch sent hashed; where that cannot be made, each changed event's JSON
  // is made on its own below.
  const digested =
    arrival && elements !== null && elements.length === data.length && text.length === raw.length
      ? digestedBody(raw, text, elements, data, arrival)
      : null;
  const source = digested?.bytes ?? raw;
  if (digested) elements = digested.elements;
  const exact = withJson && elements !== null && elements.length === data.length;
  const events: PreparedEvent[] = [];
  const failures: { eventName: string; codes: string[] }[] = [];
  const problems: [number, EventProblems][] = [];
  const warnedDuplicates: number[] = [];
  const fields: [number, string[]][] = [];
  const names = new Set<string>();
  const notable: [number, EventResult][] = [];
  let kept: KeptBody = { kind: 'as_sent' };
  for (let i = 0; i < result.accepted.length; i++) {
    const ev = result.accepted[i];
    const p = result.problems[i] as EventProblems;
    // C125: an event changed on arrival is kept as changed (digests, never the raw values), cleaned as any.
    // Its JSON as changed is made once: the kept body's span and, when the rules changed nothing more, the
    // stored event.
    const h = digested ? undefined : arrival?.get(i);
    const changed = h !== undefined;
    const text = h ? changedJson(raw, elements, data.length, i, data[i], h.replaced) : undefined;
    if (text !== undefined) kept = keepChanged(kept, elements, data.length, i, text, p);
    if (p.errors.length || p.warnings.length) {
      if (!changed) kept = keepEvent(kept, source, elements, data.length, i, p);
      notable.push([i, result.response.events[i] as EventResult]);
    }
    const name = (data[i] as { event_name?: unknown } | null)?.event_name;
    // Each distinct name is judged once, at the end: a 1000-event batch holds a few names (issue 25).
    if (typeof name === 'string') names.add(name);
    if (p.errors.length || p.warnings.length) fields.push([i, problemPaths(p)]);
    if (!ev) {
      const raw = data[i] as { event_name?: unknown } | null;
      const name = raw && typeof raw.event_name === 'string' ? countedName(raw.event_name) : '(missing)';
      failures.push({ eventName: name, codes: [...new Set(p.errors.map((e) => e.code))] });
      continue;
    }
    if (p.warnings.length) {
      problems.push([i, p]);
      if (p.warnings.some((w) => w.code === 'duplicate_event')) warnedDuplicates.push(i);
    }
    let json: string | ByteSpan = '';
    if (withJson) {
      const el = exact ? elements?.[i] : undefined;
      json =
        el?.exactNumbers && el.duplicate === null && ev === data[i] && !changed
          ? { start: el.start, end: el.end }
          : ev === data[i] && text !== undefined
            ? text
            : JSON.stringify(ev);
    }
    events.push({ index: i, eventName: ev.event_name, eventId: ev.event_id, eventTime: ev.event_time, json });
  }
  return {
    kind: 'ok',
    kept,
    answer: {
      received: result.response.num_events_received,
      processed: result.response.num_events_processed,
      notable,
      json: answerJson(result.response),
    },
    events,
    failures,
    problems,
    warnedDuplicates,
    fields,
    names: [...new Set(Array.from(names, countedName))],
    hashed,
    ...(digested ? { body: digested.bytes } : {}),
  };
}

/** SHA-256 as lower-case hex, one call per value (C125): Node's one-shot hash, no Hash object per value. */
const sha256Hex = (s: string): string => hash('sha256', s, 'hex');

/**
 * C125: normalizes and hashes, in place, the raw values of every event's hashed user_data fields (the
 * client's code, `hashUserDataInPlace`), by event index; null when no event had one. A body that is not a
 * batch is left to the request checks.
 */
function hashOnArrival(body: unknown): Map<number, HashedOnArrival> | null {
  const data = (body as { data?: unknown } | null)?.data;
  if (!Array.isArray(data)) return null;
  let out: Map<number, HashedOnArrival> | null = null;
  for (let i = 0; i < data.length; i++) {
    const h = hashUserDataInPlace(data[i], sha256Hex);
    if (h === null) continue;
    out ??= new Map();
    out.set(i, h);
  }
  return out;
}

const NOT_NORMALIZABLE: Readonly<Record<string, string>> = PROBLEM_CODES.not_normalizable_dropped.reasons;

/**
 * C125: a value the normalization refused was left unhashed, and the rules dropped it with `hash_dropped`; its
 * warning says instead why it could not be hashed (`not_normalizable_dropped`, by its field's kind).
 */
function notNormalizable(result: EventResult, p: EventProblems, h: HashedOnArrival): void {
  const kinds = new Map(h.unusable.map((u) => [u.path, u.kind]));
  replaceWarnings(result, p, (w) => {
    const reason = w.code === 'hash_dropped' ? NOT_NORMALIZABLE[kinds.get(w.path) ?? ''] : undefined;
    if (reason === undefined) return w;
    return {
      path: w.path,
      code: 'not_normalizable_dropped',
      message: formatMessage('not_normalizable_dropped', { path: w.path, reason }),
    };
  });
}

/**
 * C125: the JSON of event `i` as changed on arrival. Where its bytes are known, hold only plain strings (no
 * backslash: every string is its characters between two quotes) and only numbers every reader holds alike,
 * each raw value of `replaced` that occurs exactly once as a whole string in them is replaced there by its
 * digest: the bytes as sent with the digests in place, for about half of what serializing the event again
 * costs (bench/README.md). Once is proof of place: the value is in the event, so a second match could be
 * anything else (another field holding the same text, a member name), and then the event is serialized.
 */
function changedJson(
  raw: Buffer,
  elements: readonly DataElement[] | null,
  count: number,
  i: number,
  event: unknown,
  replaced: readonly [string, string][],
): string {
  const el = elements !== null && elements.length === count ? elements[i] : undefined;
  if (el === undefined || !el.exactNumbers || el.duplicate !== null) return JSON.stringify(event);
  return spliceDigests(raw.toString('utf8', el.start, el.end), replaced) ?? JSON.stringify(event);
}

/**
 * The JSON text of an event with each raw value of `replaced` replaced by its digest where the text holds only
 * plain strings (no backslash) and the value occurs exactly once as a whole string (see changedJson); null
 * where it cannot be proven in place.
 */
function spliceDigests(text: string, replaced: readonly [string, string][]): string | null {
  if (replaced.length === 0 || text.includes('\\')) return null;
  let out = text;
  for (const [value, digest] of replaced) {
    const at = onlyPlace(out, value);
    if (at < 0) return null;
    out = `${out.slice(0, at)}"${digest}"${out.slice(at + value.length + 2)}`;
  }
  return out;
}

/**
 * Where the string `value` lies, quotes included, in `text`, JSON without escapes that holds it as a whole
 * string: -1 unless that string token occurs exactly once. The value is first looked for without its quotes
 * (a search for a pattern that starts with a quote stops at every quote of the JSON, four times slower for
 * 1000 events): once in the text as a substring, its one token is there.
 */
function onlyPlace(text: string, value: string): number {
  const at = text.indexOf(value);
  if (
    at > 0 &&
    !text.includes(value, at + 1) &&
    text.charCodeAt(at - 1) === QUOTE &&
    text.charCodeAt(at + value.length) === QUOTE
  )
    return at - 1;
  const token = `"${value}"`;
  const quoted = text.indexOf(token);
  return quoted < 0 || text.includes(token, quoted + 1) ? -1 : quoted;
}

const QUOTE = 0x22;

/**
 * C125: one copy of the body with each raw value replaced by its digest in place (an event where that cannot
 * be proven replaced whole by its JSON as changed), the elements moved to where they now lie (in place: the
 * array is prepareBatch's own): after it the store and the request log read spans, as for a batch sent
 * hashed. A value is put in place where it occurs exactly once as a whole string of an event of plain strings
 * and exact numbers (see changedJson), its event's values in the order they are written. Made of byte copies
 * and writes into one buffer, a twentieth of what joining the text and encoding it again costs for 1000
 * events (bench/README.md), with no object per value or event: a gateway's every event has raw values. Only
 * for an ASCII body, where an offset in its text is an offset in its bytes (raw values from one sender are
 * mostly ASCII; another body is handled event by event). Null when no value was replaced.
 */
function digestedBody(
  raw: Buffer,
  text: string,
  elements: DataElement[],
  data: readonly unknown[],
  arrival: ReadonlyMap<number, HashedOnArrival>,
): { bytes: Buffer; elements: DataElement[] } | null {
  // The edits, in order of position: replace [from, to) by `put`, a digest (written between quotes) or, where
  // `whole`, an event's JSON; `grow` bytes longer.
  const from: number[] = [];
  const to: number[] = [];
  const put: string[] = [];
  const grow: number[] = [];
  const whole: boolean[] = [];
  // One look for a backslash in the whole body: most hold none, and then no event needs its own.
  const escapes = text.includes('\\');
  let size = raw.length;
  for (const [i, h] of arrival) {
    if (h.replaced.length === 0) continue;
    const el = elements[i] as DataElement;
    const edits = from.length;
    let placed = el.exactNumbers && el.duplicate === null;
    const span = placed ? text.slice(el.start, el.end) : '';
    if (placed && escapes && span.includes('\\')) placed = false;
    for (let v = 0; placed && v < h.replaced.length; v++) {
      const [value, digest] = h.replaced[v] as [string, string];
      const at = onlyPlace(span, value);
      // Out of order (never, for values of one parsed object): the event goes whole.
      if (at < 0 || (from.length > edits && el.start + at < (to[to.length - 1] as number))) placed = false;
      else {
        from.push(el.start + at);
        to.push(el.start + at + value.length + 2);
        put.push(digest);
        grow.push(digest.length - value.length);
        whole.push(false);
        size += digest.length - value.length;
      }
    }
    if (placed) continue;
    for (let k = from.length - 1; k >= edits; k--) size -= grow[k] as number;
    from.length = to.length = put.length = grow.length = whole.length = edits;
    const json = JSON.stringify(data[i]);
    const g = Buffer.byteLength(json) - (el.end - el.start);
    from.push(el.start);
    to.push(el.end);
    put.push(json);
    grow.push(g);
    whole.push(true);
    size += g;
  }
  if (from.length === 0) return null;
  // The map's order is the events' order (hashOnArrival walks them in turn), and an event's edits are in order.
  const bytes = Buffer.allocUnsafeSlow(size);
  let at = 0;
  let copied = 0;
  for (let k = 0; k < from.length; k++) {
    const f = from[k] as number;
    bytes.set(raw.subarray(copied, f), at);
    at += f - copied;
    if (whole[k]) at += bytes.write(put[k] as string, at, 'utf8');
    else {
      bytes[at++] = QUOTE;
      at += bytes.write(put[k] as string, at, 'latin1');
      bytes[at++] = QUOTE;
    }
    copied = to[k] as number;
  }
  bytes.set(raw.subarray(copied), at);
  let k = 0;
  let shift = 0;
  for (let i = 0; i < elements.length; i++) {
    const el = elements[i] as DataElement;
    const start = el.start + shift;
    const replacedWhole = k < from.length && from[k] === el.start && whole[k] === true;
    while (k < from.length && (from[k] as number) < el.end) shift += grow[k++] as number;
    el.start = start;
    el.end += shift;
    // Serialized again, the event holds no repeated name and only numbers as JavaScript reads them.
    if (replacedWhole) {
      el.duplicate = null;
      el.exactNumbers = true;
    }
  }
  return { bytes, elements };
}

/**
 * C70, C125: the kept body after event `i`, which the service changed on arrival: its span of the bytes holds
 * raw values, so it is replaced by `text`, the event as changed, cleaned by the same rule as any event where
 * its problems ask for it (a value that could not be normalized is still raw there, and dropped with a
 * warning). An event the scanner could not locate leaves no body to keep.
 */
function keepChanged(
  kept: KeptBody,
  elements: readonly { start: number; end: number }[] | null,
  count: number,
  i: number,
  text: string,
  p: EventProblems,
): KeptBody {
  if (kept.kind === 'none') return kept;
  const el = elements !== null && elements.length === count ? elements[i] : undefined;
  if (el === undefined) return { kind: 'none' };
  const paths = personalDataPaths(p);
  const refused = refusedPaths(p);
  const cleaned =
    paths === null && refused.size === 0 ? text : (redactJson(text, paths, 'event', refused) ?? text);
  const span = { start: el.start, end: el.end, text: cleaned };
  if (kept.kind === 'spliced') {
    kept.spans.push(span);
    return kept;
  }
  return { kind: 'spliced', spans: [span] };
}

/** A processed event with nothing to say: the result of almost every event of a clean batch. */
const PLAIN_RESULT: EventResult = { status: 'processed', error_message: null, warning_message: null };
const PLAIN_JSON = JSON.stringify(PLAIN_RESULT);

function isPlain(r: EventResult): boolean {
  return r.status === 'processed' && r.error_message === null && r.warning_message === null;
}

/** The results that say something (failed, or warned), by index: what the request log keeps of them. */
export function notableResults(events: readonly EventResult[]): [number, EventResult][] {
  const out: [number, EventResult][] = [];
  for (let i = 0; i < events.length; i++) {
    const r = events[i] as EventResult;
    if (!isPlain(r)) out.push([i, r]);
  }
  return out;
}

/**
 * The answer's JSON. A batch whose every event is processed without a word is one template (the counts, then
 * the same result repeated): a fifth of what JSON.stringify takes for 1000 results; the bytes are the same
 * (test/answer-json.test.ts).
 */
export function answerJson(response: BatchResponse): string {
  const { events } = response;
  const n = events.length;
  if (n === 0 || response.num_events_processed !== n) return JSON.stringify(response);
  for (let i = 0; i < n; i++) if (!isPlain(events[i] as EventResult)) return JSON.stringify(response);
  const head = JSON.stringify({ ...response, events: [] });
  return `${head.slice(0, -2)}${`${PLAIN_JSON},`.repeat(n - 1)}${PLAIN_JSON}]}`;
}

/**
 * The elements of `data` with their repeated names (C35): the light scan's, when every element's parsed value
 * holds as many keys as it has member names; otherwise a name repeats somewhere, and the full scan names its
 * path.
 */
function elementsOf(
  raw: Buffer,
  body: unknown,
  light: readonly { start: number; end: number; members: number; exactNumbers: boolean }[] | null,
): DataElement[] | null {
  const data = (body as { data?: unknown } | null)?.data;
  // Not a batch: the request checks refuse it, and no element is stored or logged.
  if (light === null || !Array.isArray(data)) return null;
  let same = data.length === light.length;
  for (let i = 0; same && i < light.length; i++)
    if (countMembers(data[i]) !== (light[i] as { members: number }).members) same = false;
  if (!same) {
    const scan = scanBody(raw, SCAN_LIMITS);
    return scan.ok ? scan.elements : null;
  }
  return light.map((e) => ({ start: e.start, end: e.end, duplicate: null, exactNumbers: e.exactNumbers }));
}

/**
 * C70: the kept body after event `i`, whose problems name personal data or dropped values: the event's span
 * of the bytes cleaned in place. An event the scanner could not locate leaves no body to keep.
 */
function keepEvent(
  kept: KeptBody,
  raw: Buffer,
  elements: readonly { start: number; end: number }[] | null,
  count: number,
  i: number,
  p: EventProblems,
): KeptBody {
  if (kept.kind === 'none') return kept;
  const paths = personalDataPaths(p);
  const refused = refusedPaths(p);
  if (paths === null && refused.size === 0) return kept;
  const el = elements !== null && elements.length === count ? elements[i] : undefined;
  if (el === undefined) return { kind: 'none' };
  const cleaned = redactJson(raw.toString('utf8', el.start, el.end), paths, 'event', refused);
  if (cleaned === null) return kept;
  const span = { start: el.start, end: el.end, text: cleaned };
  if (kept.kind === 'spliced') {
    kept.spans.push(span);
    return kept;
  }
  return { kind: 'spliced', spans: [span] };
}

/** The distinct field paths an event's problems name, errors first; the event itself ('') is no field. */
export function problemPaths(p: EventProblems): string[] {
  const paths = new Set<string>();
  for (const e of p.errors) if (e.path !== '') paths.add(e.path);
  for (const w of p.warnings) if (w.path !== '') paths.add(w.path);
  return [...paths];
}
