import { type PackedEvents, packEvents, unpackEvents } from '../threads/event-pack.js';
import type { Prepared } from './prepare.js';

/** A prepared batch as it crosses between threads: its events packed, everything else as it is. */
export type WirePrepared =
  | Exclude<Prepared, { kind: 'ok' }>
  | (Omit<Extract<Prepared, { kind: 'ok' }>, 'events'> & { events: PackedEvents });

export function toWire(p: Prepared): WirePrepared {
  return p.kind === 'ok' ? { ...p, events: packEvents(p.events) } : p;
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
