import type { BatchResponse } from '@org/events-types';
import { LIMITS } from '@org/events-types';
import { type EventProblems, type ValidationContext, validateBatch } from '@org/events-validators';
import { dataElementSlices } from './json-slices.js';

/** An accepted event, ready to store: its dedup key, event_time and JSON as accepted (C11). */
export interface PreparedEvent {
  index: number;
  eventName: string;
  eventId: string;
  eventTime: number;
  /** The event as accepted, as JSON; empty when not asked for (test mode stores nothing). */
  json: string;
}

/**
 * Everything the events endpoint needs from a body, after JSON.parse and the validators: plain data, so
 * it can be computed in a worker thread and posted back (see pool.ts).
 */
export type Prepared =
  | { kind: 'json_error'; reason: string }
  | {
      kind: 'invalid';
      status: number;
      error: { code: number; message: string; details: { path: string; problem: string }[] };
    }
  | {
      kind: 'ok';
      response: BatchResponse;
      events: PreparedEvent[];
      failures: { eventName: string; codes: string[] }[];
      /** Problems of accepted events that have warnings (sparse): what appendWarning needs for them. */
      problems: [number, EventProblems][];
      /** Indexes the validators already warned as duplicates within the batch (C6). */
      warnedDuplicates: number[];
    };

/**
 * Failed events are counted under their event_name (C11); cut to the longest valid name so junk names cannot
 * grow the counters.
 */
const MAX_COUNTED_NAME = LIMITS.custom_event_name_max_length.value;

/**
 * JSON.parse, the per-event rules of @org/events-validators (C3-C6, the same code integrators run), and the
 * JSON of each accepted event. An event accepted unchanged is stored as the text the client sent (found by
 * dataElementSlices) instead of being serialized again; a changed one (values dropped, C4) is serialized.
 */
export function prepareBatch(text: string, ctx: ValidationContext, withJson: boolean): Prepared {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (e) {
    return { kind: 'json_error', reason: text === '' ? 'the body is empty' : (e as Error).message };
  }
  const result = validateBatch(body, ctx);
  if (!result.ok) return { kind: 'invalid', status: result.status, error: result.error };
  const data = (body as { data: unknown[] }).data;
  const slices = withJson ? dataElementSlices(text) : null;
  const exact = slices !== null && slices.length === data.length;
  const events: PreparedEvent[] = [];
  const failures: { eventName: string; codes: string[] }[] = [];
  const problems: [number, EventProblems][] = [];
  const warnedDuplicates: number[] = [];
  for (let i = 0; i < result.accepted.length; i++) {
    const ev = result.accepted[i];
    const p = result.problems[i] as EventProblems;
    if (!ev) {
      const raw = data[i] as { event_name?: unknown } | null;
      const name =
        raw && typeof raw.event_name === 'string' ? raw.event_name.slice(0, MAX_COUNTED_NAME) : '(missing)';
      failures.push({ eventName: name, codes: [...new Set(p.errors.map((e) => e.code))] });
      continue;
    }
    if (p.warnings.length) {
      problems.push([i, p]);
      if (p.warnings.some((w) => w.code === 'duplicate_event')) warnedDuplicates.push(i);
    }
    let json = '';
    if (withJson) json = exact && ev === data[i] ? (slices[i] as string) : JSON.stringify(ev);
    events.push({ index: i, eventName: ev.event_name, eventId: ev.event_id, eventTime: ev.event_time, json });
  }
  return { kind: 'ok', response: result.response, events, failures, problems, warnedDuplicates };
}
