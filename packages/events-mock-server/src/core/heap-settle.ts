import type { EventEmitter } from 'node:events';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { LIMITS } from '@org/events-types';

/** What `fullCollector` found: V8's full garbage collection, or why there is none. */
export type Collector = { ok: true; collect: () => void } | { ok: false; reason: string };

/**
 * V8's full garbage collection without `--expose-gc` on the command line (C110): the flag is on only while
 * one new context is made, which then holds `gc`; contexts and threads made later get no global `gc`.
 */
export function fullCollector(): Collector {
  try {
    setFlagsFromString('--expose-gc');
    try {
      const gc = runInNewContext('gc') as unknown;
      return typeof gc === 'function'
        ? { ok: true, collect: gc as () => void }
        : { ok: false, reason: 'no gc' };
    } finally {
      setFlagsFromString('--no-expose-gc');
    }
  } catch (e) {
    return { ok: false, reason: (e as Error).message };
  }
}

export interface HeapSettleOptions {
  /** How long without a request ends a load (ms); default `heap_settle_idle_seconds`. */
  idleMs?: number;
  /** The collection to run; default V8's full one (`fullCollector`). */
  collect?: () => void;
}

export interface HeapSettle {
  /** Collections run so far. */
  readonly settled: number;
  stop(): void;
}

/**
 * C110: one full collection once a load has ended (`idleMs` with neither a request coming nor one ending,
 * after some did), so the heap gives back what the load grew it to. A server under steady load never
 * collects; an idle one collects once. `server` is the HTTP server (fastify's `app.server`): its `request`
 * events and the end of each request's response (`close`: answered, or its socket gone) are the load. A
 * request ending counts (C116): 200 slow uploads all arrive at once and end together a body timeout later
 * (30 s by default), and the memory they held is freed only then; counting their arrivals alone, the
 * collection ran while they were still coming and never after.
 */
export function settleHeapWhenIdle(server: EventEmitter, options: HeapSettleOptions = {}): HeapSettle {
  const idleMs = options.idleMs ?? LIMITS.heap_settle_idle_seconds.value * 1000;
  const found: Collector = options.collect ? { ok: true, collect: options.collect } : fullCollector();
  if (!found.ok) return { settled: 0, stop() {} };
  const { collect } = found;
  let moves = 0;
  let seen = 0;
  let loaded = false;
  let settled = 0;
  const onEnd = () => {
    moves++;
  };
  const onRequest = (_req: unknown, res?: EventEmitter) => {
    moves++;
    res?.on('close', onEnd);
  };
  server.on('request', onRequest);
  // Ticks every idleMs: a tick with requests coming or ending since the last one marks a load; the first
  // quiet tick after a load ends it. So the collection runs between idleMs and twice that after the last
  // request came or ended.
  const timer = setInterval(() => {
    if (moves !== seen) {
      seen = moves;
      loaded = true;
      return;
    }
    if (!loaded) return;
    loaded = false;
    settled++;
    collect();
  }, idleMs);
  timer.unref();
  return {
    get settled() {
      return settled;
    },
    stop() {
      clearInterval(timer);
      server.off('request', onRequest);
    },
  };
}
