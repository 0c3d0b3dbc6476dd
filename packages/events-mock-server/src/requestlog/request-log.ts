import { LIMITS } from '@org/events-types';
import type { Logger } from 'pino';
import type { Clock } from '../core/clock.js';
import type { Metrics } from '../metrics/metrics.js';
import type {
  RequestLogRetention,
  RequestLogStore,
  RequestLogSummary,
  RequestLogWrite,
} from '../store/interface/request-log.js';

/** Retention of the request log (C60); the config's `request_log:` section, else the spec's defaults. */
export interface RequestLogOptions {
  maxEntries: number;
  /** Total bytes of the bodies kept. */
  maxBytes: number;
  maxAgeSeconds: number;
  maxBodyBytes: number;
  /** Which bodies are kept (C70): every one, those of requests with a problem, or none. */
  bodies: RequestLogBodies;
}

export const REQUEST_LOG_BODIES = ['all', 'problems', 'none'] as const;
export type RequestLogBodies = (typeof REQUEST_LOG_BODIES)[number];

export const DEFAULT_REQUEST_LOG: RequestLogOptions = {
  maxEntries: LIMITS.request_log_max_entries.value,
  maxBytes: LIMITS.request_log_max_bytes.value,
  maxAgeSeconds: LIMITS.request_log_max_age_seconds.value,
  maxBodyBytes: LIMITS.request_log_max_body_bytes.value,
  bodies: 'problems',
};

/** Entries waiting for the store at most; past it (the store is away) new ones are dropped and counted. */
const MAX_QUEUED = 10_000;

const HOUR_MS = 3_600_000;

/** Entries wait this long to be written together: one transaction (and one fsync) for many requests. */
const WRITE_INTERVAL_MS = LIMITS.request_log_write_interval_seconds.value * 1000;
/**
 * Retention is applied with a write at most this often (C130): on PostgreSQL its deletes are most of a
 * write's round trips. Internal, not a limit users see: the log may hold a second's entries over max_entries.
 */
const PRUNE_EVERY_MS = 1000;

/** The first hour start (Unix seconds) of the report timeline at `now` (C63). */
export function timelineStart(now: number): number {
  return (Math.floor(now / HOUR_MS) - (LIMITS.report_timeline_hours.value - 1)) * 3600;
}

export type RequestListener = (summary: RequestLogSummary) => void;

/**
 * The request log of C60. Entries are recorded after the answer was sent and written in batches: the
 * entries of WRITE_INTERVAL_MS go to the store in one call, with the retention applied in the same
 * transaction at most once every PRUNE_EVERY_MS (C130), so a busy server pays one transaction per interval
 * rather than one per request. A failed write is counted and logged; it never reaches a client.
 * Listeners (the live stream, C62) hear each entry once it is written.
 */
export class RequestLog {
  readonly options: RequestLogOptions;
  readonly #store: RequestLogStore;
  readonly #clock: Clock;
  readonly #metrics: Metrics;
  readonly #logger: Logger;
  readonly #listeners = new Set<RequestListener>();
  readonly #enders = new Set<() => void>();
  #queue: RequestLogWrite[] = [];
  #tail: Promise<void> = Promise.resolve();
  #timer: NodeJS.Timeout | undefined;
  /** When retention was last applied with a write (the clock's ms). */
  #prunedAt = Number.NEGATIVE_INFINITY;

  constructor(
    store: RequestLogStore,
    clock: Clock,
    metrics: Metrics,
    logger: Logger,
    options: RequestLogOptions,
  ) {
    this.#store = store;
    this.#clock = clock;
    this.#metrics = metrics;
    this.#logger = logger;
    this.options = options;
  }

  /** Oldest received time still kept (ms): reads leave out what the next prune will delete. */
  notBefore(): number {
    return this.#clock.now() - this.options.maxAgeSeconds * 1000;
  }

  /** Whether entries are kept at all (`request_log.max_entries: 0` turns the log off). */
  get enabled(): boolean {
    return this.options.maxEntries > 0;
  }

  record(entry: RequestLogWrite): void {
    if (!this.enabled) return;
    if (this.#queue.length >= MAX_QUEUED) {
      this.#metrics.requestLogErrors.inc();
      return;
    }
    this.#queue.push(entry);
    if (this.#timer) return;
    this.#timer = setTimeout(() => this.#flush(), WRITE_INTERVAL_MS);
    this.#timer.unref();
  }

  #flush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#queue.length === 0) return;
    const batch = this.#queue;
    this.#queue = [];
    this.#tail = this.#tail.then(() => this.#write(batch));
  }

  /** Writes what waits, and resolves once every entry recorded so far is written (or failed). */
  flushed(): Promise<void> {
    this.#flush();
    return this.#tail;
  }

  async #write(batch: RequestLogWrite[]): Promise<void> {
    const now = this.#clock.now();
    const retention: RequestLogRetention = {
      maxEntries: this.options.maxEntries,
      maxBytes: this.options.maxBytes,
      maxAgeMs: this.options.maxAgeSeconds * 1000,
      now,
      timelineSince: timelineStart(now),
      prune: !(now >= this.#prunedAt && now - this.#prunedAt < PRUNE_EVERY_MS),
    };
    if (retention.prune) this.#prunedAt = now;
    let seqs: number[];
    try {
      seqs = await this.#store.appendRequests(batch, retention);
    } catch (e) {
      this.#metrics.requestLogErrors.inc(batch.length);
      this.#logger.warn({ err: e, entries: batch.length }, 'request log write failed');
      return;
    }
    // Summaries only for someone listening: most of the time no live stream is open.
    if (this.#listeners.size === 0) return;
    batch.forEach((e, i) => {
      const { body: _b, bodyTruncated: _t, items: _i, timeline: _tl, ...rest } = e;
      const summary: RequestLogSummary = { ...rest, seq: seqs[i] as number };
      for (const l of this.#listeners) l(summary);
    });
  }

  /** Hears every entry written from now on; `end` is called when the server shuts down. */
  subscribe(listener: RequestListener, end: () => void): () => void {
    this.#listeners.add(listener);
    this.#enders.add(end);
    return () => {
      this.#listeners.delete(listener);
      this.#enders.delete(end);
    };
  }

  /** Ends every subscription (shutdown): their sockets must not hold the server open. */
  endStreams(): void {
    for (const end of [...this.#enders]) end();
    this.#listeners.clear();
    this.#enders.clear();
  }
}
