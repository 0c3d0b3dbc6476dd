import type { Prepared, PreparedEvent } from './prepare.js';

/**
 * The accepted events of a prepared batch as a validation thread posts them back: a few flat values instead
 * of one object per event. A message copies each object key by key (V8's structured clone keeps no shapes):
 * 100 events as objects took 54 µs to serialize and read back, as this form 2 (issue 25).
 */
export interface PackedEvents {
  /** Per event: index, eventTime, and its JSON's span in the body (start, end), or SPAN_TEXT / SPAN_EMPTY. */
  numbers: Float64Array;
  /** Every event's eventName then eventId, back to back. */
  text: string;
  /** Per event: the lengths of its eventName and eventId in `text` (UTF-16 code units). */
  lengths: Uint32Array;
  /** The JSON of the events whose JSON is text of its own (not a span, not empty), in order. */
  jsons: string[];
}

/** The `start` of an event whose JSON is its own text, the next of `jsons`. */
const SPAN_TEXT = -1;
/** The `start` of an event with empty JSON (test mode stores nothing). */
const SPAN_EMPTY = -2;

export function packEvents(events: readonly PreparedEvent[]): PackedEvents {
  const n = events.length;
  const numbers = new Float64Array(n * 4);
  const lengths = new Uint32Array(n * 2);
  const parts: string[] = new Array(n * 2);
  const jsons: string[] = [];
  for (let i = 0; i < n; i++) {
    const e = events[i] as PreparedEvent;
    numbers[i * 4] = e.index;
    numbers[i * 4 + 1] = e.eventTime;
    if (typeof e.json === 'string') {
      if (e.json === '') numbers[i * 4 + 2] = SPAN_EMPTY;
      else {
        numbers[i * 4 + 2] = SPAN_TEXT;
        jsons.push(e.json);
      }
    } else {
      numbers[i * 4 + 2] = e.json.start;
      numbers[i * 4 + 3] = e.json.end;
    }
    parts[i * 2] = e.eventName;
    parts[i * 2 + 1] = e.eventId;
    lengths[i * 2] = e.eventName.length;
    lengths[i * 2 + 1] = e.eventId.length;
  }
  return { numbers, text: parts.join(''), lengths, jsons };
}

export function unpackEvents(p: PackedEvents): PreparedEvent[] {
  const { numbers, text, lengths, jsons } = p;
  const count = lengths.length / 2;
  const events: PreparedEvent[] = new Array(count);
  let at = 0;
  let next = 0;
  for (let i = 0; i < count; i++) {
    const nameEnd = at + (lengths[i * 2] as number);
    const idEnd = nameEnd + (lengths[i * 2 + 1] as number);
    const start = numbers[i * 4 + 2] as number;
    events[i] = {
      index: numbers[i * 4] as number,
      eventName: text.slice(at, nameEnd),
      eventId: text.slice(nameEnd, idEnd),
      eventTime: numbers[i * 4 + 1] as number,
      json:
        start === SPAN_EMPTY
          ? ''
          : start === SPAN_TEXT
            ? (jsons[next++] as string)
            : { start, end: numbers[i * 4 + 3] as number },
    };
    at = idEnd;
  }
  return events;
}

/** A prepared batch as it crosses between threads: its events packed, everything else as it is. */
export type WirePrepared =
  | Exclude<Prepared, { kind: 'ok' }>
  | (Omit<Extract<Prepared, { kind: 'ok' }>, 'events'> & { events: PackedEvents });

export function toWire(p: Prepared): WirePrepared {
  return p.kind === 'ok' ? { ...p, events: packEvents(p.events) } : p;
}

export function fromWire(w: WirePrepared): Prepared {
  return w.kind === 'ok' ? { ...w, events: unpackEvents(w.events) } : w;
}
