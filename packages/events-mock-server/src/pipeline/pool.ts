import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { LIMITS } from '@org/events-types';
import type { ValidationContext } from '@org/events-validators';
import { Channel } from '../threads/channel.js';
import { startWorker } from '../threads/start-worker.js';
import { fromWire, type WirePrepared } from './event-wire.js';
import { type Prepared, prepareBatch } from './prepare.js';

export interface ValidationOptions {
  /**
   * Worker threads for large bodies; 0 validates everything on the event loop. Default (C76): for batches
   * that store nothing (test mode), one per core; for stored batches, the available parallelism minus two
   * (the event loop and the SQLite thread each keep a core busy under load), so on two cores or fewer a
   * stored batch is validated on the event loop. A count given here applies to every large batch.
   */
  threads?: number;
  /** Bodies smaller than this (bytes) are validated inline: a thread hop costs more than it saves. */
  minBytes?: number;
  /** The cores the defaults are for: the available parallelism unless given (tests). */
  cores?: number;
  /** A thread idle this long (ms) exits and gives its memory back; the next large body starts one. */
  idleMs?: number;
}

interface Slot {
  /** The thread; its pending calls are the tasks posted to it and not answered yet. */
  thread: Channel;
  /** Ends the thread once it has been idle for the pool's idle time; refreshed as each task ends. */
  idle: NodeJS.Timeout;
}

/** The validation thread (threads/start-worker.ts says how it boots from source). */
const startValidationWorker = (): Worker => startWorker(import.meta.url, 'validation-worker');

/**
 * Runs prepareBatch inline for small bodies and in a pool of worker threads for large ones. Threads start
 * lazily, on the first large body, so servers that only see small batches (most tests) never pay for them.
 * The same code runs either way, so answers do not depend on where a batch was validated.
 */
export class ValidationPool {
  /** Threads at most for batches that store nothing (test mode), and for stored ones (C76). */
  readonly #testThreads: number;
  readonly #storedThreads: number;
  readonly #minBytes: number;
  readonly #idleMs: number;
  readonly #slots: Slot[] = [];
  #closed = false;

  constructor(options: ValidationOptions = {}) {
    const cores = options.cores ?? availableParallelism();
    const given = options.threads === undefined ? undefined : Math.max(0, options.threads);
    this.#testThreads = given ?? cores;
    this.#storedThreads = given ?? Math.max(0, cores - 2);
    this.#minBytes = options.minBytes ?? LIMITS.validation_thread_min_bytes.value;
    this.#idleMs = options.idleMs ?? LIMITS.validation_thread_idle_seconds.value * 1000;
  }

  /** Where a body of this size is validated: `inline` (the event loop) or `worker`. */
  threadFor(bytes: number, stored: boolean): 'inline' | 'worker' {
    return this.#limit(stored) === 0 || bytes < this.#minBytes || this.#closed ? 'inline' : 'worker';
  }

  #limit(stored: boolean): number {
    return stored ? this.#storedThreads : this.#testThreads;
  }

  /** Threads running now (they start on demand and exit when idle). */
  get running(): number {
    return this.#slots.length;
  }

  prepare(raw: Buffer, ctx: ValidationContext, withJson: boolean): Promise<Prepared> {
    if (this.threadFor(raw.length, withJson) === 'inline')
      return Promise.resolve(prepareBatch(raw, ctx, withJson));
    const slot = this.#pick(this.#limit(withJson));
    // A copy the worker then owns: the body may be a view on a shared pool buffer, which must not move.
    const bytes = new Uint8Array(raw).buffer;
    const threadCtx = {
      ...ctx,
      ...(ctx.customEventNames ? { customEventNames: [...ctx.customEventNames] } : {}),
    };
    return slot.thread
      .call<WirePrepared>('prepare', [bytes, threadCtx, withJson], { transfer: [bytes] })
      .then(fromWire);
  }

  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all(
      this.#slots.splice(0).map((s) => {
        clearTimeout(s.idle);
        return s.thread.worker.terminate();
      }),
    );
  }

  /**
   * The least busy thread; a new one while all are busy and fewer than `limit` (the batch kind's) run. Both
   * kinds share the threads: a test batch may land on a thread a stored one started, and the reverse.
   */
  #pick(limit: number): Slot {
    let best: Slot | undefined;
    for (const s of this.#slots) if (!best || s.thread.pending < best.thread.pending) best = s;
    if (best && (best.thread.pending === 0 || this.#slots.length >= limit)) return best;
    return this.#spawn();
  }

  #spawn(): Slot {
    const worker = startValidationWorker();
    // Idle threads must not keep the process alive (integrators' test runners exit on their own).
    worker.unref();
    // An idle thread holds its heap (tens of MB after large batches): it exits, and RSS returns (C59, C76).
    const idle = setTimeout(() => {
      if (slot.thread.pending === 0) this.#retire(slot);
    }, this.#idleMs);
    idle.unref();
    const slot: Slot = {
      idle,
      thread: new Channel(worker, {
        name: 'validation worker',
        // The thread's stack is the useful part of a 500's log line: the error happened there, not here.
        revive: (e) => new Error(`validation worker: ${e.stack ?? e.message}`),
        onAnswer: () => {
          if (slot.thread.pending === 0) idle.refresh();
        },
        // A thread that dies fails its tasks (answered 500) and is replaced on the next large body.
        onDeath: () => {
          clearTimeout(idle);
          this.#remove(slot);
        },
      }),
    };
    this.#slots.push(slot);
    return slot;
  }

  #remove(slot: Slot): void {
    const i = this.#slots.indexOf(slot);
    if (i >= 0) this.#slots.splice(i, 1);
  }

  /** Ends an idle thread: out of the pool first, so no task is posted to it while it stops. */
  #retire(slot: Slot): void {
    this.#remove(slot);
    void slot.thread.worker.terminate();
  }
}
