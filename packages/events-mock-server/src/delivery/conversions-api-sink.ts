import { HEADERS, JSON_CONTENT_TYPE } from '../generated/routes.gen.js';
import type { OutboxBatch, UpstreamResult } from '../store/outbox.js';
import { waitOf } from './backoff.js';
import type { ConversionsApiSinkConfig } from './delivery-config.js';
import { describeHttpFailure, redactCredentials } from './sanitize.js';
import type { Sink, SinkOutcome } from './sink.js';

interface UpstreamAnswer {
  events?: { status?: string; error_message?: string | null; warning_message?: string | null }[];
}

/**
 * An upstream Conversions API (Pinterest's, or another instance of this server; C100). The stored events
 * are sent as accepted, so the upstream deduplicates repeats by their event_id and event_name. Node's fetch:
 * the events are already JSON text, joined into the body without parsing them again.
 */
export class ConversionsApiSink implements Sink {
  readonly kind = 'conversions_api';
  readonly name: string;
  readonly batchSize: number;
  readonly #c: ConversionsApiSinkConfig;
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
    const account = this.#c.upstreamAdAccount ?? batch.adAccountId;
    const url = `${this.#c.url.replace(/\/+$/, '')}/v5/ad_accounts/${encodeURIComponent(account)}/events`;
    let res: Response;
    let text: string;
    try {
      res = await fetch(url, {
        method: 'POST',
        headers: { authorization: `Bearer ${this.#token}`, 'content-type': JSON_CONTENT_TYPE },
        body: `{"data":[${batch.entries.map((e) => e.event).join(',')}]}`,
        signal,
      });
      text = await res.text();
    } catch (e) {
      const err = e as Error & { cause?: { code?: string } };
      const summary = signal.aborted ? 'timeout' : (err.cause?.code ?? err.name);
      return {
        ok: false,
        summary,
        error: `${url}: ${summary}: ${redactCredentials(err.message, [this.#token])}`,
      };
    }
    const now = this.#now();
    // x-ratelimit-*: the upstream says how much is left; at 0 the sink waits for the reset (C100).
    const remaining = res.headers.get(HEADERS.RateLimitRemaining);
    const reset = waitOf(res.headers.get(HEADERS.RateLimitReset), now);
    if (remaining === '0' && reset !== undefined) this.#pausedUntil = now + reset;
    if (res.status !== 200) {
      const wait =
        waitOf(res.headers.get(HEADERS.RetryAfter), now) ?? (res.status === 429 ? reset : undefined);
      if (wait !== undefined) this.#pausedUntil = Math.max(this.#pausedUntil, now + wait);
      return {
        ok: false,
        summary: `HTTP ${res.status}`,
        error: `${url}: ${describeHttpFailure(res.status, res.statusText, text, [this.#token])}`,
        ...(wait !== undefined ? { retryAfterMs: wait } : {}),
        ...(refusesForGood(res.status) ? { permanent: true } : {}),
      };
    }
    return { ok: true, results: resultsOf(text, batch.entries.length) };
  }

  async close(): Promise<void> {}
}

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
