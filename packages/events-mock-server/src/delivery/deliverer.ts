import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { Outbox, OutboxBatch } from '../store/outbox.js';
import { retryDelay } from './backoff.js';
import type { DeliveryConfig } from './delivery-config.js';
import type { Sink } from './sink.js';

/** Counters of one sink since start, for /metrics and /readyz (C100). */
export interface SinkCounters {
  sink: string;
  kind: Sink['kind'];
  /** Events acknowledged by the receiver. */
  delivered: number;
  /** Failed deliveries (batches), and the last error of one, kept until the next success. */
  failures: number;
  lastError: string | null;
}

/**
 * Runs one loop per sink (C100): claim due batches of the outbox under a lease, deliver them (at most
 * `concurrency` at once, each of another account, so accounts keep their order), settle each as delivered
 * or failed with its retry time. Several instances on the same store share the work through the leases.
 */
export class Deliverer {
  readonly #outbox: Outbox;
  readonly #sinks: Sink[];
  readonly #c: DeliveryConfig;
  readonly #log: Logger;
  readonly #now: () => number;
  /** The lease owner of this process: a fresh id, so a restarted process never settles a dead one's claims. */
  readonly #owner = randomUUID();
  readonly #stop = new AbortController();
  readonly #loops: Promise<void>[] = [];
  readonly #counters = new Map<string, SinkCounters>();
  #lastPrune = 0;

  constructor(outbox: Outbox, sinks: Sink[], c: DeliveryConfig, log: Logger, now: () => number = Date.now) {
    this.#outbox = outbox;
    this.#sinks = sinks;
    this.#c = c;
    this.#log = log;
    this.#now = now;
    for (const s of sinks)
      this.#counters.set(s.name, { sink: s.name, kind: s.kind, delivered: 0, failures: 0, lastError: null });
  }

  start(): void {
    for (const s of this.#sinks) this.#loops.push(this.#run(s));
  }

  counters(): SinkCounters[] {
    return [...this.#counters.values()].map((c) => ({ ...c }));
  }

  /** Stops claiming, aborts deliveries in flight (their entries stay pending), closes the sinks. */
  async close(): Promise<void> {
    this.#stop.abort();
    await Promise.all(this.#loops);
    await Promise.all(this.#sinks.map((s) => s.close().catch(() => {})));
  }

  async #run(sink: Sink): Promise<void> {
    const signal = this.#stop.signal;
    while (!signal.aborted) {
      try {
        const wait = sink.pausedUntil() - this.#now();
        if (wait > 0) {
          await sleep(wait, undefined, { signal });
          continue;
        }
        await this.#prune();
        const batches = await this.#outbox.claimOutbox({
          sink: sink.name,
          owner: this.#owner,
          now: this.#now(),
          leaseMs: this.#c.leaseSeconds * 1000,
          batchSize: sink.batchSize,
          maxBatches: this.#c.concurrency,
        });
        if (batches.length === 0) await sleep(this.#c.pollIntervalMs, undefined, { signal });
        else await Promise.all(batches.map((b) => this.#deliver(sink, b)));
      } catch (e) {
        if (signal.aborted) return;
        // The store is unavailable: nothing was claimed or settled; its leases run out and are claimed again.
        this.#log.warn({ err: e, sink: sink.name }, 'delivery: outbox unavailable');
        await sleep(this.#c.pollIntervalMs, undefined, { signal }).catch(() => {});
      }
    }
  }

  async #deliver(sink: Sink, b: OutboxBatch): Promise<void> {
    const ids = b.entries.map((e) => e.id);
    const timeout = AbortSignal.timeout(this.#c.timeoutSeconds * 1000);
    const outcome = await sink.deliver(b, AbortSignal.any([this.#stop.signal, timeout]));
    // Stopping cut the delivery: the batch is given back unsent, so a restart claims it at once (at least once, C100). An
    // upstream that received it anyway drops the repeat by its key.
    if (!outcome.ok && this.#stop.signal.aborted) {
      await this.#outbox.settleOutbox(this.#owner, { kind: 'released', ids }).catch(() => {});
      return;
    }
    const counters = this.#counters.get(sink.name) as SinkCounters;
    const now = this.#now();
    if (outcome.ok) {
      await this.#outbox.settleOutbox(this.#owner, {
        kind: 'delivered',
        ids,
        now,
        ...(outcome.results ? { results: outcome.results } : {}),
      });
      counters.delivered += ids.length;
      counters.lastError = null;
      return;
    }
    const attempts = Math.min(...b.entries.map((e) => e.attempts));
    const delay = retryDelay(attempts, {
      baseMs: this.#c.retryBaseMs,
      maxMs: this.#c.retryMaxSeconds * 1000,
      ...(outcome.retryAfterMs !== undefined ? { retryAfterMs: outcome.retryAfterMs } : {}),
    });
    await this.#outbox.settleOutbox(this.#owner, {
      kind: 'failed',
      ids,
      now,
      error: outcome.error,
      retryAt: now + delay,
      // A refusal for good spends no more attempts: the entries go dead now.
      maxAttempts: outcome.permanent ? 0 : this.#c.maxAttempts,
    });
    counters.failures++;
    counters.lastError = outcome.error;
    this.#log.warn(
      {
        sink: sink.name,
        adAccountId: b.adAccountId,
        events: ids.length,
        attempts: attempts + 1,
        error: outcome.error,
      },
      outcome.permanent
        ? 'delivery refused; the entries are dead until requeued'
        : 'delivery failed; retrying later',
    );
  }

  /** Retention of delivered entries (C100), at most once a minute across the sinks of this process. */
  async #prune(): Promise<void> {
    const now = this.#now();
    if (now - this.#lastPrune < 60_000) return;
    this.#lastPrune = now;
    await this.#outbox.pruneOutbox(now - this.#c.retentionSeconds * 1000);
  }
}
