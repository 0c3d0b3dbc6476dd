import { BATCH_LIMITS } from '../generated/api.gen.js';

/** A batch ready to send: its number, the input indexes it answers, and the body as sent. */
export interface Batch {
  batch: number;
  indexes: number[];
  body: string;
}

/** An event serialized once, with its input index. */
export interface Serialized {
  index: number;
  json: string;
}

export interface BatchLimits {
  maxEvents: number;
  maxBytes: number;
}

const encoder = new TextEncoder();
const HEAD = '{"data":[';
const TAIL = ']}';

/** UTF-8 length without encoding ASCII-only text (the common case) into a buffer. */
export function utf8Length(s: string): number {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the test is for any non-ASCII code unit
  return /^[\x00-\x7f]*$/.test(s) ? s.length : encoder.encode(s).length;
}

/** The caller's limits, never above the spec's (C56). */
export function batchLimits(maxEvents?: number, maxBytes?: number): BatchLimits {
  return {
    maxEvents: Math.max(1, Math.min(maxEvents ?? BATCH_LIMITS.maxEvents, BATCH_LIMITS.maxEvents)),
    maxBytes: Math.min(maxBytes ?? BATCH_LIMITS.maxBodyBytes, BATCH_LIMITS.maxBodyBytes),
  };
}

/** The body size of a batch of one event: whether it can be sent at all. */
export function aloneBytes(json: string): number {
  return HEAD.length + utf8Length(json) + TAIL.length;
}

/**
 * Cuts serialized events into batches within the event and byte limits (C56): `add` returns the batch that
 * the event did not fit in, if any; `flush` the last one. Events too large to go alone must be kept out
 * before (see `aloneBytes`).
 */
export class Batcher {
  private indexes: number[] = [];
  private parts: string[] = [];
  private bytes = HEAD.length + TAIL.length;
  private n = 0;

  constructor(private readonly limits: BatchLimits) {}

  add(e: Serialized): Batch | null {
    const size = utf8Length(e.json);
    let full: Batch | null = null;
    if (
      this.parts.length > 0 &&
      (this.parts.length >= this.limits.maxEvents || this.bytes + size + 1 > this.limits.maxBytes)
    )
      full = this.flush();
    this.bytes += size + (this.parts.length > 0 ? 1 : 0);
    this.parts.push(e.json);
    this.indexes.push(e.index);
    return full;
  }

  flush(): Batch | null {
    if (this.parts.length === 0) return null;
    const b = { batch: this.n++, indexes: this.indexes, body: HEAD + this.parts.join(',') + TAIL };
    this.indexes = [];
    this.parts = [];
    this.bytes = HEAD.length + TAIL.length;
    return b;
  }
}
