import type { CustomEventType, CustomEventTypeCreateRequest, CustomEventTypeList } from '@org/events-types';
import { hashUserData, validateBatch } from '@org/events-validators';
import { REQUEST_ERRORS } from '../generated/api.gen.js';
import { RETRY_DEFAULTS } from './backoff.js';
import { aloneBytes, type Batch, Batcher, batchLimits } from './batches.js';
import { EventsConnectionError, EventsLocalError } from './errors.js';
import { orderedPool } from './ordered-pool.js';
import { SerializedEvent } from './serialized.js';
import { type CallInput, call, type TransportOptions } from './transport.js';
import type { ClientOptions, EventInput, EventOutcome, SendOptions } from './types.js';

type Unit = { kind: 'local'; outcomes: EventOutcome[] } | { kind: 'batch'; batch: Batch };

interface BatchBody {
  events: { status: 'processed' | 'failed'; error_message: string | null; warning_message: string | null }[];
}

export interface EventsClient {
  /** Sends every event and answers each, in input order (C57). */
  sendEvents(
    events: Iterable<EventInput> | AsyncIterable<EventInput>,
    options?: SendOptions,
  ): Promise<EventOutcome[]>;
  /** The same, yielding outcomes in input order as batches end, with bounded memory (C57). */
  streamEvents(
    events: Iterable<EventInput> | AsyncIterable<EventInput>,
    options?: SendOptions,
  ): AsyncGenerator<EventOutcome>;
  customEventTypes: {
    list(): Promise<CustomEventTypeList>;
    create(body: CustomEventTypeCreateRequest): Promise<CustomEventType>;
    delete(name: string): Promise<void>;
  };
}

function local(
  index: number,
  status: EventOutcome['status'],
  message: string,
  error: EventOutcome['error'] = null,
): EventOutcome {
  return { index, status, errorMessage: message, warningMessage: null, batch: null, attempts: 0, error };
}

export function createClient(options: ClientOptions): EventsClient {
  const concurrency = Math.max(1, options.concurrency ?? 4);
  const limits = batchLimits(options.maxBatchEvents, options.maxBatchBytes);
  const retry = { ...RETRY_DEFAULTS, ...options.retry };
  const transport = (o: SendOptions = {}, batch: number | null = null): TransportOptions => ({
    baseUrl: options.baseUrl,
    token: options.token,
    retry,
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.headers ? { headers: options.headers } : {}),
    ...(o.signal ? { signal: o.signal } : {}),
    ...(o.onRetry
      ? { onRetry: (r) => o.onRetry?.({ batch, attempt: r.attempt, delayMs: r.delayMs, status: r.status }) }
      : {}),
  });
  const account = { ad_account_id: options.adAccountId };

  async function* units(
    events: Iterable<EventInput> | AsyncIterable<EventInput>,
    o: SendOptions,
  ): AsyncGenerator<Unit> {
    const batcher = new Batcher(limits);
    const ctx = o.customEventNames ? { customEventNames: [...o.customEventNames] } : {};
    let index = 0;
    const needObject = o.hash === true || o.validate === true;
    for await (const input of events) {
      const i = index++;
      let json: string | undefined;
      let event: Record<string, unknown>;
      if (input instanceof SerializedEvent) {
        if (!needObject) json = input.json;
        event = needObject ? (JSON.parse(input.json) as Record<string, unknown>) : {};
      } else event = input as Record<string, unknown>;
      if (o.hash && event.user_data && typeof event.user_data === 'object') {
        try {
          event = {
            ...event,
            user_data: await hashUserData(event.user_data as Record<string, string | string[]>),
          };
        } catch (e) {
          yield { kind: 'local', outcomes: [local(i, 'invalid', `user_data: ${(e as Error).message}`)] };
          continue;
        }
      }
      if (o.validate) {
        const v = validateBatch({ data: [event] }, ctx);
        const r = v.ok ? v.response.events[0] : undefined;
        if (!v.ok || r?.status === 'failed') {
          const message =
            r?.error_message ??
            (v.ok ? 'failed' : v.error.details.map((d) => `${d.path} ${d.problem}`).join('; '));
          yield {
            kind: 'local',
            outcomes: [{ ...local(i, 'invalid', message), warningMessage: r?.warning_message ?? null }],
          };
          continue;
        }
      }
      json ??= JSON.stringify(event);
      if (aloneBytes(json) > limits.maxBytes) {
        const e = REQUEST_ERRORS.payload_too_large;
        const message = `${e.message} The event alone is ${aloneBytes(json)} bytes as a request; the most is ${limits.maxBytes}.`;
        yield {
          kind: 'local',
          outcomes: [local(i, 'not_sent', message, new EventsLocalError('payload_too_large', message))],
        };
        continue;
      }
      const full = batcher.add({ index: i, json });
      if (full) yield { kind: 'batch', batch: full };
    }
    const last = batcher.flush();
    if (last) yield { kind: 'batch', batch: last };
  }

  async function sendBatch(b: Batch, o: SendOptions): Promise<EventOutcome[]> {
    const input: CallInput = {
      params: account,
      body: b.body,
      ...(o.test ? { query: { test: 'true' } } : {}),
    };
    const r = await call(transport(o, b.batch), 'events/create', input);
    o.onBatch?.({
      batch: b.batch,
      events: b.indexes.length,
      attempts: r.attempts,
      ok: r.ok,
      requestId: r.ok ? r.requestId : null,
    });
    if (!r.ok)
      return b.indexes.map((index) => ({
        index,
        status: 'not_sent',
        errorMessage: r.error.message,
        warningMessage: null,
        batch: b.batch,
        attempts: r.attempts,
        error: r.error,
      }));
    const body = JSON.parse(r.text) as BatchBody;
    return b.indexes.map((index, k) => {
      const e = body.events[k];
      return {
        index,
        status: e?.status ?? 'failed',
        errorMessage: e ? e.error_message : 'the service answered fewer results than events',
        warningMessage: e?.warning_message ?? null,
        batch: b.batch,
        attempts: r.attempts,
        error: null,
      };
    });
  }

  async function* streamEvents(
    events: Iterable<EventInput> | AsyncIterable<EventInput>,
    o: SendOptions = {},
  ) {
    // Units end in their own order; a reorder buffer hands outcomes out by input index (C57).
    const waiting = new Map<number, EventOutcome>();
    let next = 0;
    // A batch never rejects (orderedPool needs that): an unreadable 200 body ends its events not_sent.
    const work = (u: Unit) =>
      u.kind === 'local'
        ? Promise.resolve(u.outcomes)
        : sendBatch(u.batch, o).catch((e: unknown) =>
            u.batch.indexes.map((index) => ({
              index,
              status: 'not_sent' as const,
              errorMessage: `the answer could not be read: ${(e as Error).message}`,
              warningMessage: null,
              batch: u.batch.batch,
              attempts: 1,
              error: new EventsConnectionError(e),
            })),
          );
    for await (const outcomes of orderedPool(units(events, o), concurrency, work)) {
      for (const r of outcomes) waiting.set(r.index, r);
      for (let r = waiting.get(next); r !== undefined; r = waiting.get(next)) {
        waiting.delete(next++);
        yield r;
      }
    }
  }

  async function json<T>(
    operationId: 'custom_event_types/list' | 'custom_event_types/create' | 'custom_event_types/delete',
    input: CallInput,
  ): Promise<T> {
    const r = await call(transport(), operationId, input);
    if (!r.ok) throw r.error;
    return (r.text ? JSON.parse(r.text) : undefined) as T;
  }

  return {
    async sendEvents(events, o) {
      const out: EventOutcome[] = [];
      for await (const r of streamEvents(events, o)) out.push(r);
      return out;
    },
    streamEvents,
    customEventTypes: {
      list: () => json<CustomEventTypeList>('custom_event_types/list', { params: account }),
      create: (body) =>
        json<CustomEventType>('custom_event_types/create', { params: account, body: JSON.stringify(body) }),
      delete: (name) => json<void>('custom_event_types/delete', { params: { ...account, name } }),
    },
  };
}
