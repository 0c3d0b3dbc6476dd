/**
 * What every event crossing between threads carries: an accepted event (pipeline's PreparedEvent, store's
 * EventToStore without its usage). Spelled out here rather than imported: threads/ sits below both hops.
 */
export interface PackableEvent {
  /** Index in the request's data array. */
  index: number;
  eventName: string;
  eventId: string;
  eventTime: number;
  /** The event's JSON text, or its bytes [start, end) in the batch's source. */
  json: string | { start: number; end: number };
}

/** An event on its way to the store: what crosses, and the usage its event name carries. */
export interface StorableEvent extends PackableEvent {
  usage: readonly string[];
}

/**
 * Events as they cross between threads (a validation thread's accepted events, a batch on its way to the
 * SQLite store thread): a few flat values instead of one object per event. A message copies each object
 * key by key (V8's structured clone keeps no shapes): 100 events as objects took 54 µs to serialize and
 * read back, as this form 2 (issue 25).
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

/** Stored events: the packed events, and each one's usage as an index into the batch's distinct usages. */
export interface PackedStoreEvents extends PackedEvents {
  usages: (readonly string[])[];
  usageOf: Uint32Array;
}

/** The `start` of an event whose JSON is its own text, the next of `jsons`. */
const SPAN_TEXT = -1;
/** The `start` of an event with empty JSON (test mode stores nothing). */
const SPAN_EMPTY = -2;

export function packEvents(events: readonly PackableEvent[]): PackedEvents {
  const n = events.length;
  const numbers = new Float64Array(n * 4);
  const lengths = new Uint32Array(n * 2);
  const parts: string[] = new Array(n * 2);
  const jsons: string[] = [];
  for (let i = 0; i < n; i++) {
    const e = events[i] as PackableEvent;
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

export function unpackEvents(p: PackedEvents): PackableEvent[] {
  const { numbers, text, lengths, jsons } = p;
  const count = lengths.length / 2;
  const events: PackableEvent[] = new Array(count);
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

/** A batch's usages are a few shared lists (one per event name): each crosses once. */
export function packStoreEvents(events: readonly StorableEvent[]): PackedStoreEvents {
  const usages: (readonly string[])[] = [];
  const known = new Map<readonly string[], number>();
  const usageOf = new Uint32Array(events.length);
  for (let i = 0; i < events.length; i++) {
    const u = (events[i] as StorableEvent).usage;
    let k = known.get(u);
    if (k === undefined) {
      k = usages.push(u) - 1;
      known.set(u, k);
    }
    usageOf[i] = k;
  }
  return { ...packEvents(events), usages, usageOf };
}

export function unpackStoreEvents(p: PackedStoreEvents): StorableEvent[] {
  const events = unpackEvents(p) as StorableEvent[];
  for (let i = 0; i < events.length; i++)
    (events[i] as StorableEvent).usage = p.usages[p.usageOf[i] as number] as readonly string[];
  return events;
}

/** What a batch (store's BatchWrite) needs to cross: its events, and the body their spans point into. */
export interface PackableBatch {
  events: readonly StorableEvent[];
  source?: Uint8Array;
}

/** A batch as it crosses to the SQLite store thread: its events packed, everything else as it is. */
export type WireBatch<B extends PackableBatch = PackableBatch> = Omit<B, 'events'> & {
  events: PackedStoreEvents;
};

export function toWireBatch<B extends PackableBatch>(b: B): WireBatch<B> {
  return {
    ...b,
    events: packStoreEvents(b.events),
    // A message copies a view's whole buffer: a body inside Node's shared pool goes as its own bytes.
    ...(b.source && b.source.byteLength !== b.source.buffer.byteLength
      ? { source: new Uint8Array(b.source) }
      : {}),
  };
}

export function fromWireBatch<B extends PackableBatch>(
  w: WireBatch<B>,
): Omit<B, 'events'> & { events: StorableEvent[] } {
  return { ...w, events: unpackStoreEvents(w.events) };
}
