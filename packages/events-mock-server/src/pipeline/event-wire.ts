import { type PackedEvents, packEvents, unpackEvents } from '../threads/event-pack.js';
import type { Prepared } from './prepare.js';

/** A prepared batch as it crosses between threads: its events packed, everything else as it is. */
export type WirePrepared =
  | Exclude<Prepared, { kind: 'ok' }>
  | (Omit<Extract<Prepared, { kind: 'ok' }>, 'events'> & { events: PackedEvents });

export function toWire(p: Prepared): WirePrepared {
  return p.kind === 'ok' ? { ...p, events: packEvents(p.events) } : p;
}

/**
 * The buffers of a prepared batch that are its alone, to move to the other thread rather than copy: the
 * packed events' numbers and, for a batch hashed on arrival, its copy of the body (C125: as large as the
 * body). A view over part of a larger buffer is copied.
 */
export function transferList(w: WirePrepared): ArrayBuffer[] {
  if (w.kind !== 'ok') return [];
  const views: ArrayBufferView[] = [w.events.numbers, w.events.lengths, ...(w.body ? [w.body] : [])];
  return views
    .filter(
      (v) => v.byteOffset === 0 && v.byteLength === v.buffer.byteLength && v.buffer instanceof ArrayBuffer,
    )
    .map((v) => v.buffer as ArrayBuffer);
}

export function fromWire(w: WirePrepared): Prepared {
  if (w.kind !== 'ok') return w;
  // A Buffer crosses as a plain Uint8Array: a Buffer again over the same bytes, no copy.
  const { body } = w;
  return {
    ...w,
    events: unpackEvents(w.events),
    ...(body ? { body: Buffer.from(body.buffer, body.byteOffset, body.byteLength) } : {}),
  };
}
