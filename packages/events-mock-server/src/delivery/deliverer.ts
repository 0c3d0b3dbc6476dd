import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type {
  DeletionAnswer,
  Outbox,
  OutboxBatch,
  OutboxOutcome,
  UpstreamResult,
} from '../store/interface/outbox.js';
import { retryDelay } from './backoff.js';
import type { DeliveryConfig } from './delivery-config.js';
import type { Sink } from './sink.js';

/**
 * Claims' worth of batches one account's run takes (C128) before it ends and its account is claimed again
 * beside the others, oldest head first, so a busy account does not keep its place from the others.
 */
const RUN_CLAIMS = 8;

const lastEntryOf = (batches: readonly OutboxBatch[]): number =>
  ((batches.at(-1) as OutboxBatch).entries.at(-1) as { id: number }).id;

/**
 * The settlements of one account's run (C128), one at a time and in order: what was delivered while one was
 * being made goes in the next, as one outcome; the run's last one adds its failure and what goes back.
 * A settlement the store refuses leaves the run `broken`: it sends nothing more (its entries' leases run out).
 */
class Settlements {
  readonly #outbox: Outbox;
  readonly #owner: string;
  readonly #adAccountId: string;
  readonly #now: () => number;
  /** Events delivered (deletion requests are not counted), and whether no failure was settled with them. */
  readonly #counted: (events: number, clean: boolean) => void;
  #pending: {
    ids: number[];
    results: (UpstreamResult | null)[];
    answered: boolean;
    deletions: DeletionAnswer[];
  } | null = null;
  #chain: Promise<void> = Promise.resolve();
  #busy = false;
  broken: unknown = null;

  constructor(
    outbox: Outbox,
    owner: string,
    adAccountId: string,
    now: () => number,
    counted: (events: number, clean: boolean) => void,
  ) {
    this.#outbox = outbox;
    this.#owner = owner;
    this.#adAccountId = adAccountId;
    this.#now = now;
    this.#counted = counted;
  }

  delivered(o: Extract<OutboxOutcome, { kind: 'delivered' }>): void {
    this.#pending ??= { ids: [], results: [], answered: false, deletions: [] };
    const p = this.#pending;
    p.ids.push(...o.ids);
    p.results.push(...(o.results ?? o.ids.map(() => null)));
    p.answered ||= o.results !== undefined;
    if (o.deletions) p.deletions.push(...o.deletions);
    if (this.#busy || this.broken) return;
    this.#busy = true;
    this.#chain = this.#chain.then(async () => {
      try {
        while (this.#pending && !this.broken) await this.#settle([]);
      } catch (e) {
        this.broken = e;
      } finally {
        this.#busy = false;
      }
    });
  }

  /** The run's last settlement, after the ones under way; rejects when the store does. */
  async end(outcomes: OutboxOutcome[]): Promise<void> {
    await this.#chain;
    if (this.broken) throw this.broken;
    if (this.#pending || outcomes.length) await this.#settle(outcomes);
  }

  async #settle(after: readonly OutboxOutcome[]): Promise<void> {
    const p = this.#pending;
    this.#pending = null;
    const outcomes: OutboxOutcome[] = [];
    if (p)
      outcomes.push({
        kind: 'delivered',
        adAccountId: this.#adAccountId,
        ids: p.ids,
        // Whole milliseconds: the stores keep times as integers (C113).
        now: Math.ceil(this.#now()),
        ...(p.answered ? { results: p.results } : {}),
        ...(p.deletions.length ? { deletions: p.deletions } : {}),
      });
    outcomes.push(...after);
    if (!outcomes.length) return;
    await this.#outbox.settleOutbox(this.#owner, outcomes);
    if (p) this.#counted(p.ids.length - p.deletions.length, !after.some((o) => o.kind === 'failed'));
  }
}

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
    const stopped = new Promise<void>((r) => signal.addEventListener('abort', () => r(), { once: true }));
    /** The accounts being delivered, each a run of its own (C128). */
    const runs = new Map<string, Promise<void>>();
    let runEnded: () => void = () => {};
    try {
      while (!signal.aborted) {
        try {
          const wait = sink.pausedUntil() - this.#now();
          if (wait > 0) {
            await sleep(wait, undefined, { signal });
            continue;
          }
          await this.#prune();
          let started = 0;
          const free = this.#c.concurrency - runs.size;
          if (free > 0) {
            // The accounts being delivered are leased to this deliverer: a claim takes others.
            const seen = this.#outbox.deletionsCommitted();
            const batches = await this.#outbox.claimOutbox({
              sink: sink.name,
              owner: this.#owner,
              now: this.#now(),
              leaseMs: this.#c.leaseSeconds * 1000,
              batchSize: sink.batchSize,
              batchesPerAccount: this.#c.batchesPerClaim,
              maxAccounts: free,
            });
            const byAccount = new Map<string, OutboxBatch[]>();
            for (const b of batches)
              byAccount.set(b.adAccountId, [...(byAccount.get(b.adAccountId) ?? []), b]);
            for (const [account, bs] of byAccount) {
              if (runs.has(account)) {
                // Its run's lease ran out while a delivery outlived it (a lease shorter than the timeout):
                // given back rather than sent beside what is still out; another deliverer may take it.
                const ids = bs.flatMap((b) => b.entries.map((e) => e.id));
                await this.#outbox.settleOutbox(this.#owner, { kind: 'released', adAccountId: account, ids });
                continue;
              }
              started++;
              runs.set(
                account,
                this.#deliverAccount(sink, account, bs, seen)
                  .catch((e) => {
                    // The store is unavailable: what was not settled is leased until its lease runs out.
                    if (!signal.aborted)
                      this.#log.warn({ err: e, sink: sink.name }, 'delivery: outbox unavailable');
                  })
                  .finally(() => {
                    runs.delete(account);
                    runEnded();
                  }),
              );
            }
          }
          if (started && runs.size < this.#c.concurrency) continue;
          // Every run busy: until one ends. Nothing new to claim: until one ends or the poll interval passed.
          const ended = new Promise<void>((r) => {
            runEnded = r;
          });
          await Promise.race([
            ended,
            stopped,
            ...(started ? [] : [sleep(this.#c.pollIntervalMs, undefined, { signal }).catch(() => {})]),
          ]);
        } catch (e) {
          if (signal.aborted) return;
          // The store is unavailable: nothing was claimed or settled; its leases run out and are claimed again.
          this.#log.warn({ err: e, sink: sink.name }, 'delivery: outbox unavailable');
          await sleep(this.#c.pollIntervalMs, undefined, { signal }).catch(() => {});
        }
      }
    } finally {
      await Promise.allSettled([...runs.values()]);
    }
  }

  /**
   * One account's run (C114, C128): its claimed batches, then more of it (`extendClaim`) while they go, for
   * up to RUN_CLAIMS claims' worth, so the next batches are at hand when the last is answered. Up to
   * `sink.inFlight` batches are sent before the first is answered, in order on the account's connection; a
   * deletion request goes alone (C127). Delivered batches are settled as they are answered, one settlement
   * at a time with whatever was answered meanwhile, while the next ones go. The run ends at a failure, a
   * stop, a pause, when the lease has less time left than a delivery may take, when the account has
   * nothing more, or at the cap: the batches sent after a failure and those not sent go back in its last
   * settlement (the upstream may have taken some of them: they are sent again, at least once). It also ends
   * before a batch claimed before a conversion deletion it had not seen (`seen`: the store's count read
   * before the claim): the deletion removed the entries of its events, which a claim made now leaves out
   * (C132).
   */
  async #deliverAccount(
    sink: Sink,
    adAccountId: string,
    first: readonly OutboxBatch[],
    seen: number,
  ): Promise<void> {
    const leaseMs = this.#c.leaseSeconds * 1000;
    const timeoutMs = this.#c.timeoutSeconds * 1000;
    let leaseUntil = this.#now() + leaseMs;
    const queue = [...first];
    const claimedAfter = new Map<OutboxBatch, number>(first.map((b) => [b, seen]));
    let lastId = lastEntryOf(first);
    let given = first.length;
    const cap = this.#c.batchesPerClaim * RUN_CLAIMS;
    const inFlight: { batch: OutboxBatch; outcome: Promise<OutboxOutcome> }[] = [];
    const settle = new Settlements(this.#outbox, this.#owner, adAccountId, this.#now, (n, clean) => {
      const counters = this.#counters.get(sink.name) as SinkCounters;
      counters.delivered += n;
      if (n && clean) {
        counters.lastError = null;
        counters.lastStatus = null;
      }
    });
    let more: Promise<void> | null = null;
    let exhausted = false;
    let ended = false;
    let sent = 0;
    let failure: OutboxOutcome | null = null;
    const extend = () => {
      const at = this.#now();
      const deletions = this.#outbox.deletionsCommitted();
      more = this.#outbox
        .extendClaim({
          sink: sink.name,
          owner: this.#owner,
          adAccountId,
          afterId: lastId,
          now: at,
          leaseMs,
          batchSize: sink.batchSize,
          limit: sink.batchSize * this.#c.batchesPerClaim,
        })
        .then(
          (bs) => {
            // Null: another deliverer holds the account; nothing more of it is sent from here.
            if (bs === null) {
              ended = true;
              return;
            }
            leaseUntil = at + leaseMs;
            if (!bs.length) exhausted = true;
            else {
              for (const b of bs) claimedAfter.set(b, deletions);
              queue.push(...bs);
              lastId = lastEntryOf(bs);
              given += bs.length;
            }
          },
          (e) => {
            exhausted = true;
            this.#log.warn({ err: e, sink: sink.name }, 'delivery: outbox unavailable');
          },
        )
        .finally(() => {
          more = null;
        });
    };
    try {
      for (;;) {
        while (!ended && queue.length && inFlight.length < sink.inFlight) {
          const next = queue[0] as OutboxBatch;
          // A deletion request goes once everything before it was answered, and nothing goes beside it.
          if (inFlight.length && (next.deletion || inFlight.some((f) => f.batch.deletion))) break;
          // C132: a deletion committed since the batch was claimed: nothing more goes from this claim.
          if (claimedAfter.get(next) !== this.#outbox.deletionsCommitted()) {
            ended = true;
            break;
          }
          const now = this.#now();
          if (
            sent > 0 &&
            (this.#stop.signal.aborted ||
              settle.broken ||
              now + timeoutMs > leaseUntil ||
              sink.pausedUntil() > now)
          ) {
            ended = true;
            break;
          }
          queue.shift();
          sent++;
          inFlight.push({ batch: next, outcome: this.#deliver(sink, next) });
        }
        if (
          !ended &&
          !more &&
          !exhausted &&
          given < cap &&
          queue.length <= Math.max(sink.inFlight, this.#c.batchesPerClaim / 2)
        )
          extend();
        const head = inFlight.shift();
        if (!head) {
          if (more && !ended) {
            await more;
            continue;
          }
          break;
        }
        const outcome = await head.outcome;
        if (outcome.kind === 'delivered') {
          settle.delivered(outcome);
          continue;
        }
        failure = outcome;
        ended = true;
      }
    } finally {
      // What is still out is answered first (a failure cut the run: it goes back whatever its answer), then
      // what a claim still in progress gives is given back with the rest.
      const rest: number[] = [];
      for (const f of inFlight) {
        await f.outcome;
        rest.push(...f.batch.entries.map((e) => e.id));
      }
      if (more) await more;
      for (const b of queue) rest.push(...b.entries.map((e) => e.id));
      await settle.end([
        ...(failure ? [failure] : []),
        ...(rest.length ? [{ kind: 'released' as const, adAccountId, ids: rest }] : []),
      ]);
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
        // C127: the answer to a deletion request, kept on the request by the settlement.
        ...(outcome.deletion ? { deletions: [{ entryId: ids[0] as number, ...outcome.deletion }] } : {}),
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
        ...(b.deletion ? { deletionRequest: b.deletion.requestId } : { events: ids.length }),
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
