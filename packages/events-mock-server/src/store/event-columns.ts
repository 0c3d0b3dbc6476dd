import type { ByteSpan } from './store.js';

/** What an event crossing a thread carries: its place, dedup key, time and JSON (own text or a span). */
export interface EventRecord {
  index: number;
  eventName: string;
  eventId: string;
  eventTime: number;
  json: string | ByteSpan;
}

/**
 * Events as columns for a message between threads: typed arrays and arrays of strings. A message copies
 * 1000 small objects in about 0.6 ms of the sender's time and as much of the receiver's, the columns in a
 * quarter of that (issue 25); each side builds or reads the objects on its own time.
 */
export interface EventColumns {
  index: Int32Array;
  eventTime: Float64Array;
  eventName: string[];
  eventId: string[];
  /** An event's own text, or null where its bytes are a span of the body. */
  text: (string | null)[];
  /** [start, end) of each spanned event. */
  span: Int32Array;
}

export function toColumns(events: readonly EventRecord[]): EventColumns {
  const n = events.length;
  const c: EventColumns = {
    index: new Int32Array(n),
    eventTime: new Float64Array(n),
    eventName: new Array(n),
    eventId: new Array(n),
    text: new Array(n),
    span: new Int32Array(2 * n),
  };
  for (let i = 0; i < n; i++) {
    const e = events[i] as EventRecord;
    c.index[i] = e.index;
    c.eventTime[i] = e.eventTime;
    c.eventName[i] = e.eventName;
    c.eventId[i] = e.eventId;
    if (typeof e.json === 'string') c.text[i] = e.json;
    else {
      c.text[i] = null;
      c.span[2 * i] = e.json.start;
      c.span[2 * i + 1] = e.json.end;
    }
  }
  return c;
}

/** The i-th event of the columns. */
export function recordAt(c: EventColumns, i: number): EventRecord {
  return {
    index: c.index[i] as number,
    eventName: c.eventName[i] as string,
    eventId: c.eventId[i] as string,
    eventTime: c.eventTime[i] as number,
    json: c.text[i] ?? { start: c.span[2 * i] as number, end: c.span[2 * i + 1] as number },
  };
}

export function fromColumns(c: EventColumns): EventRecord[] {
  const n = c.index.length;
  const out: EventRecord[] = new Array(n);
  for (let i = 0; i < n; i++) out[i] = recordAt(c, i);
  return out;
}
