import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { Outbox, OutboxBatch, OutboxOutcome, UpstreamResult } from '../store/outbox.js';
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
  /** Sanitized (sanitize.ts): a status line and a short excerpt, never a credential. */
  lastError: string | null;
  /** What /readyz says of the last failure (`HTTP 503`, `ECONNREFUSED`): never the receiver's text. */
  lastStatus: string | null;
}

/**
 * Runs one loop per sink (C100, C114): claim the due entries of up to `concurrency` accounts under a lease,
 * up to `batchesPerClaim` batches of each; deliver the accounts side by side and each account's batches one
 * after the other (so each account keeps its order); settle an account's claim in one call: delivered,
 * failed with its retry time, the rest given back. Several instances on the same store share the work
 * through the leases.
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
      this.#counters.set(s.name, {
        sink: s.name,
        kind: s.kind,
        delivered: 0,
        failures: 0,
        lastError: null,
        lastStatus: null,
      });
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
        const leaseMs = this.#c.leaseSeconds * 1000;
        const batches = await this.#outbox.claimOutbox({
          sink: sink.name,
          owner: this.#owner,
          now: this.#now(),
          leaseMs,
          batchSize: sink.batchSize,
          batchesPerAccount: this.#c.batchesPerClaim,
          maxAccounts: this.#c.concurrency,
        });
        if (batches.length === 0) {
          await sleep(this.#c.pollIntervalMs, undefined, { signal });
          continue;
        }
        const leaseUntil = this.#now() + leaseMs;
        const byAccount = new Map<string, OutboxBatch[]>();
        for (const b of batches) byAccount.set(b.adAccountId, [...(byAccount.get(b.adAccountId) ?? []), b]);
        await Promise.all([...byAccount.values()].map((bs) => this.#deliverAccount(sink, bs, leaseUntil)));
      } catch (e) {
        if (signal.aborted) return;
        // The store is unavailable: nothing was claimed or settled; its leases run out and are claimed again.
        this.#log.warn({ err: e, sink: sink.name }, 'delivery: outbox unavailable');
        await sleep(this.#c.pollIntervalMs, undefined, { signal }).catch(() => {});
      }
    }
  }

  /**
   * One account's batches of a claim, in order, then one settlement of them all (C114): what was delivered,
   * a failure, and the rest given back unsent and uncounted. The rest goes back after a failure, and when
   * the lease has less time left than a delivery may take (another deliverer could claim it and send it
   * too) or the receiver asked for a pause. Rejects only when the store does; the leases then run out.
   */
  async #deliverAccount(sink: Sink, batches: readonly OutboxBatch[], leaseUntil: number): Promise<void> {
    const adAccountId = (batches[0] as OutboxBatch).adAccountId;
    // The receiver's results per event, where it gave them (an upstream Conversions API does, NATS does not).
    const delivered: { ids: number[]; results: (UpstreamResult | null)[]; answered: boolean } = {
      ids: [],
      results: [],
      answered: false,
    };
    const outcomes: OutboxOutcome[] = [];
    let i = 0;
    for (; i < batches.length; i++) {
      const b = batches[i] as OutboxBatch;
      const now = this.#now();
      if (
        i > 0 &&
        (this.#stop.signal.aborted ||
          now + this.#c.timeoutSeconds * 1000 > leaseUntil ||
          sink.pausedUntil() > now)
      )
        break;
      const outcome = await this.#deliver(sink, b);
      if (outcome.kind === 'delivered') {
        delivered.ids.push(...outcome.ids);
        delivered.results.push(...(outcome.results ?? outcome.ids.map(() => null)));
        delivered.answered ||= outcome.results !== undefined;
        continue;
      }
      outcomes.push(outcome);
      i++;
      break;
    }
    const rest = batches.slice(i).flatMap((r) => r.entries.map((e) => e.id));
    if (rest.length) outcomes.push({ kind: 'released', adAccountId, ids: rest });
    if (delivered.ids.length)
      outcomes.unshift({
        kind: 'delivered',
        adAccountId,
        ids: delivered.ids,
        now: Math.ceil(this.#now()),
        ...(delivered.answered ? { results: delivered.results } : {}),
      });
    if (!outcomes.length) return;
    await this.#outbox.settleOutbox(this.#owner, outcomes);
    const counters = this.#counters.get(sink.name) as SinkCounters;
    counters.delivered += delivered.ids.length;
    if (delivered.ids.length && !outcomes.some((o) => o.kind === 'failed')) {
      counters.lastError = null;
      counters.lastStatus = null;
    }
  }

  /** Delivers one batch; answers its settlement, which the caller makes with the others of its claim. */
  async #deliver(sink: Sink, b: OutboxBatch): Promise<OutboxOutcome> {
    const ids = b.entries.map((e) => e.id);
    const adAccountId = b.adAccountId;
    const timeout = AbortSignal.timeout(this.#c.timeoutSeconds * 1000);
    const outcome = await sink.deliver(b, AbortSignal.any([this.#stop.signal, timeout]));
    // Stopping cut the delivery: the batch is given back unsent, so a restart claims it at once (at least once, C100). An
    // upstream that received it anyway drops the repeat by its key.
    if (!outcome.ok && this.#stop.signal.aborted) return { kind: 'released', adAccountId, ids };
    // Whole milliseconds: the stores keep times as integers (C113).
    const now = Math.ceil(this.#now());
    if (outcome.ok)
      return {
        kind: 'delivered',
        adAccountId,
        ids,
        now,
        ...(outcome.results ? { results: outcome.results } : {}),
      };
    const attempts = Math.min(...b.entries.map((e) => e.attempts));
    const delay = retryDelay(attempts, {
      baseMs: this.#c.retryBaseMs,
      maxMs: this.#c.retryMaxSeconds * 1000,
      ...(outcome.retryAfterMs !== undefined ? { retryAfterMs: outcome.retryAfterMs } : {}),
    });
    // Counted before the store answers: a store that cannot record the failure does not hide it (C113).
    const counters = this.#counters.get(sink.name) as SinkCounters;
    counters.failures++;
    counters.lastError = outcome.error;
    counters.lastStatus = outcome.summary;
    this.#log.warn(
      {
        sink: sink.name,
        adAccountId,
        events: ids.length,
        attempts: attempts + 1,
        error: outcome.error,
      },
      outcome.permanent
        ? 'delivery refused; the entries are dead until requeued'
        : 'delivery failed; retrying later',
    );
    return {
      kind: 'failed',
      adAccountId,
      ids,
      now,
      error: outcome.error,
      retryAt: now + delay,
      // A refusal for good spends no more attempts: the entries go dead now.
      maxAttempts: outcome.permanent ? 0 : this.#c.maxAttempts,
    };
  }

  /** Retention of delivered entries (C100), at most once a minute across the sinks of this process. */
  async #prune(): Promise<void> {
    const now = this.#now();
    if (now - this.#lastPrune < 60_000) return;
    this.#lastPrune = now;
    await this.#outbox.pruneOutbox(now - this.#c.retentionSeconds * 1000);
  }
}
