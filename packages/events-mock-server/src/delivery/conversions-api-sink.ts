import { STATUS_CODES } from 'node:http';
import { LIMITS } from '@org/events-types';
import { Client } from 'undici';
import { HEADERS, JSON_CONTENT_TYPE } from '../generated/routes.gen.js';
import type {
  DeletionAnswer,
  DeletionStatus,
  OutboxBatch,
  UpstreamResult,
} from '../store/interface/outbox.js';
import { waitOf } from './backoff.js';
import type { ConversionsApiSinkConfig } from './delivery-config.js';
import { describeHttpFailure, redactCredentials } from './sanitize.js';
import type { Sink, SinkOutcome } from './sink.js';

interface UpstreamAnswer {
  events?: { status?: string; error_message?: string | null; warning_message?: string | null }[];
}

/**
 * An upstream Conversions API (Pinterest's, or another instance of this server; C100). The stored events
 * are sent as accepted, so the upstream deduplicates repeats by their event_id and event_name. undici, one
 * keep-alive connection per account (C128): the events are already JSON text, joined into the body without
 * parsing them again.
 */
export class ConversionsApiSink implements Sink {
  readonly kind = 'conversions_api';
  readonly name: string;
  readonly batchSize: number;
  /** C128: batches of one account sent before the first is answered, on its one connection. */
  readonly inFlight = PIPELINING;
  readonly #c: ConversionsApiSinkConfig;
  readonly #clients = new Map<string, Client>();
  readonly #token: string;
  readonly #now: () => number;
  #pausedUntil = 0;

  constructor(c: ConversionsApiSinkConfig, token: string, now: () => number) {
    this.name = c.name;
    this.batchSize = c.batchSize;
    this.#c = c;
    this.#token = token;
    this.#now = now;
  }

  pausedUntil(): number {
    return this.#pausedUntil;
  }

  async deliver(batch: OutboxBatch, signal: AbortSignal): Promise<SinkOutcome> {
    const account = encodeURIComponent(this.#c.upstreamAdAccount ?? batch.adAccountId);
    const base = `${this.#c.url.replace(/\/+$/, '')}/v5/ad_accounts/${account}`;
    if (batch.deletion) {
      // C127: the same route of the upstream, with the sink's token (Pinterest's wants an OAuth token with
      // ads:write: a token that may not call it is refused, and the entry goes dead).
      const answer = await this.#post(
        `${base}/conversion_deletion_requests`,
        batch.adAccountId,
        batch.deletion.body,
        signal,
        CREATED,
      );
      if (!answer.ok) return answer;
      return { ok: true, deletion: deletionAnswerOf(answer.text, this.#now()) };
    }
    const answer = await this.#post(
      `${base}/events`,
      batch.adAccountId,
      `{"data":[${batch.entries.map((e) => e.event).join(',')}]}`,
      signal,
      OK,
    );
    if (!answer.ok) return answer;
    return { ok: true, results: resultsOf(answer.text, batch.entries.length) };
  }

  /**
   * One POST with the sink's token: the answer's text when the upstream took it (a status of `taken`), else
   * the failure with what the backoff needs. Rate-limit headers pause the sink either way.
   */
  async #post(
    url: string,
    account: string,
    body: string,
    signal: AbortSignal,
    taken: readonly number[],
  ): Promise<{ ok: true; text: string } | (SinkOutcome & { ok: false })> {
    let status: number;
    let headers: Record<string, string | string[] | undefined>;
    let text: string;
    try {
      const u = new URL(url);
      const res = await this.#client(u.origin, account).request({
        path: `${u.pathname}${u.search}`,
        method: 'POST',
        headers: { authorization: `Bearer ${this.#token}`, 'content-type': JSON_CONTENT_TYPE },
        body,
        signal,
        // C128: sent on the account's connection behind the batches before it, without waiting for their
        // answers (the upstream deduplicates a repeat by its key, so a batch may be sent again).
        idempotent: true,
        blocking: false,
      });
      status = res.statusCode;
      headers = res.headers;
      text = await res.body.text();
    } catch (e) {
      const err = e as Error & { code?: string; cause?: { code?: string } };
      const summary = signal.aborted ? 'timeout' : (err.code ?? err.cause?.code ?? err.name);
      return {
        ok: false,
        summary,
        error: `${url}: ${summary}: ${redactCredentials(err.message, [this.#token])}`,
      };
    }
    const header = (name: string): string | null => {
      const v = headers[name.toLowerCase()];
      return v === undefined ? null : Array.isArray(v) ? (v[0] ?? null) : v;
    };
    const now = this.#now();
    // x-ratelimit-*: the upstream says how much is left; at 0 the sink waits for the reset (C100).
    const remaining = header(HEADERS.RateLimitRemaining);
    const reset = waitOf(header(HEADERS.RateLimitReset), now);
    if (remaining === '0' && reset !== undefined) this.#pausedUntil = now + reset;
    if (!taken.includes(status)) {
      const wait = waitOf(header(HEADERS.RetryAfter), now) ?? (status === 429 ? reset : undefined);
      if (wait !== undefined) this.#pausedUntil = Math.max(this.#pausedUntil, now + wait);
      return {
        ok: false,
        summary: `HTTP ${status}`,
        // undici gives no reason phrase: the standard one of the status.
        error: `${url}: ${describeHttpFailure(status, STATUS_CODES[status] ?? '', text, [this.#token])}`,
        ...(wait !== undefined ? { retryAfterMs: wait } : {}),
        ...(refusesForGood(status) ? { permanent: true } : {}),
      };
    }
    return { ok: true, text };
  }

  /**
   * The keep-alive connection of an account (C128): an account's batches go on one connection, so they leave
   * in order, up to `inFlight` of them pipelined; accounts have their own, so one's pipeline never holds
   * another's. The least recently used is closed past a bound.
   */
  #client(origin: string, account: string): Client {
    const key = `${origin} ${account}`;
    let c = this.#clients.get(key);
    if (c) this.#clients.delete(key);
    else {
      c = new Client(origin, { pipelining: this.inFlight, keepAliveTimeout: 30_000 });
      const oldest = this.#clients.size >= MAX_CONNECTIONS ? this.#clients.keys().next().value : undefined;
      if (oldest !== undefined) {
        void this.#clients
          .get(oldest)
          ?.close()
          .catch(() => {});
        this.#clients.delete(oldest);
      }
    }
    this.#clients.set(key, c);
    return c;
  }

  async close(): Promise<void> {
    const clients = [...this.#clients.values()];
    this.#clients.clear();
    await Promise.all(clients.map((c) => c.destroy().catch(() => {})));
  }
}

/** C128: batches of one account in flight at once on its connection (HTTP/1.1 pipelining). */
const PIPELINING = LIMITS.delivery_in_flight.value;
/** Connections kept open to the upstream, one per account delivered recently. */
const MAX_CONNECTIONS = 64;

/** The events route answers 200; Pinterest's SDKs take a created deletion request as 200 or 201 (C127). */
const OK = [200] as const;
const CREATED = [200, 201] as const;

/**
 * A 4xx other than 408 (timeout) and 429 (rate limit) refuses the request itself: a bad token (401, 403), an
 * unknown account (404), a body the upstream will never take (400, 413, 415). Retrying cannot change it.
 */
export function refusesForGood(status: number): boolean {
  return status >= 400 && status < 500 && status !== 408 && status !== 429;
}

/** The upstream's answer per event, by index (C100: kept with the entry); null where it said nothing. */
function resultsOf(text: string, n: number): (UpstreamResult | null)[] {
  let answer: UpstreamAnswer;
  try {
    answer = JSON.parse(text) as UpstreamAnswer;
  } catch {
    return Array(n).fill(null);
  }
  return Array.from({ length: n }, (_, i) => {
    const e = answer.events?.[i];
    if (!e) return null;
    return {
      status: e.status === 'failed' ? 'failed' : 'processed',
      message: e.error_message ?? null,
      warning: e.warning_message ?? null,
    };
  });
}

const STATUSES: readonly DeletionStatus[] = ['PENDING', 'SUBMITTED', 'CANCELLED'];
const DAY = /^\d{4}-\d{2}-\d{2}$/;
const UPSTREAM_ID = /^\d{1,18}$/;

/**
 * What the upstream answered to a deletion request (C127): Pinterest's `ConversionDeletionRequest`. Its status
 * (an answer without a known one: SUBMITTED, the upstream took it), the day it says it processed it (SUBMITTED
 * without a day: now), and its id for the request, when it has Pinterest's form.
 */
function deletionAnswerOf(text: string, now: number): Omit<DeletionAnswer, 'entryId'> {
  let a: { status?: unknown; processed_time?: unknown; request_id?: unknown } = {};
  try {
    const parsed = JSON.parse(text) as unknown;
    if (typeof parsed === 'object' && parsed !== null) a = parsed as typeof a;
  } catch {
    // Not JSON: taken, with nothing more said.
  }
  const status = STATUSES.find((s) => s === a.status) ?? 'SUBMITTED';
  const day =
    typeof a.processed_time === 'string' && DAY.test(a.processed_time)
      ? Date.parse(`${a.processed_time}T00:00:00Z`)
      : Number.NaN;
  return {
    status,
    processedAt: Number.isFinite(day) ? day : status === 'SUBMITTED' ? now : null,
    upstreamRequestId:
      typeof a.request_id === 'string' && UPSTREAM_ID.test(a.request_id) ? a.request_id : null,
  };
}
