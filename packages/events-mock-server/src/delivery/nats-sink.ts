// Loaded only when a NATS sink is configured (open-sinks.ts): the client is an optional dependency.
import { type JetStreamClient, type JetStreamManager, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { OutboxBatch } from '../store/interface/outbox.js';
import type { NatsSinkConfig } from './delivery-config.js';
import { redactCredentials } from './sanitize.js';
import type { Sink, SinkOutcome } from './sink.js';

const NANOS_PER_MS = 1_000_000;

/** The Nats-Msg-Id of an event (C100): the dedup key of C6, which JetStream drops repeats of. */
export function natsMsgId(adAccountId: string, eventName: string, eventId: string): string {
  return `${adAccountId}:${eventName}:${eventId}`;
}

/**
 * NATS JetStream (C100): one subject per ad account (`<prefix>.<id>`), each event its own message with the
 * dedup key as Nats-Msg-Id. A batch is delivered once every publish is acknowledged by the stream, so an
 * entry is never marked delivered before JetStream holds it.
 */
export class NatsSink implements Sink {
  readonly kind = 'nats';
  readonly name: string;
  readonly batchSize: number;
  /** One batch of an account at a time: its publishes are acknowledged before the next batch goes. */
  readonly inFlight = 1;
  readonly #c: NatsSinkConfig;
  readonly #nc: NatsConnection;
  readonly #js: JetStreamClient;
  /** How long a publish waits for its acknowledgement: the delivery timeout, as for any sink. */
  readonly #timeoutMs: number;

  private constructor(c: NatsSinkConfig, nc: NatsConnection, timeoutMs: number) {
    this.#timeoutMs = timeoutMs;
    this.name = c.name;
    this.batchSize = c.batchSize;
    this.#c = c;
    this.#nc = nc;
    this.#js = jetstream(nc);
  }

  /** Connects and creates the stream with the config's limits (or updates them on an existing one). */
  static async open(c: NatsSinkConfig, timeoutMs: number): Promise<NatsSink> {
    const nc = await connect({ servers: c.url, maxReconnectAttempts: -1 });
    try {
      await ensureStream(await jetstreamManager(nc), c);
    } catch (e) {
      await nc.close().catch(() => {});
      throw new Error(
        `delivery sink ${c.name}: cannot set up the stream ${c.stream} at ${c.url}: ${(e as Error).message}`,
      );
    }
    return new NatsSink(c, nc, timeoutMs);
  }

  pausedUntil(): number {
    return 0;
  }

  async deliver(batch: OutboxBatch, signal: AbortSignal): Promise<SinkOutcome> {
    // C127: a NATS sink is given no deletion request; one left by a sink of the same name that was a
    // Conversions API sink is refused, so its request says it was not passed on (CANCELLED).
    if (batch.deletion)
      return {
        ok: false,
        summary: 'refused',
        error: 'a NATS sink does not take conversion deletion requests (C127)',
        permanent: true,
      };
    const subject = `${this.#c.subjectPrefix}.${batch.adAccountId}`;
    const enc = new TextEncoder();
    try {
      // Sent in order on one connection, acknowledged in any order: the stream keeps the order sent.
      await Promise.all(
        batch.entries.map((e) =>
          this.#js.publish(subject, enc.encode(e.event), {
            msgID: natsMsgId(batch.adAccountId, e.eventName, e.eventId),
            timeout: this.#timeoutMs,
          }),
        ),
      );
      if (signal.aborted) return { ok: false, summary: 'aborted', error: 'aborted' };
      return { ok: true };
    } catch (e) {
      const err = e as Error & { code?: string };
      return {
        ok: false,
        summary: err.code ?? err.name,
        error: `${this.#c.url}: ${redactCredentials(err.message)}`,
      };
    }
  }

  async close(): Promise<void> {
    await this.#nc.drain().catch(() => {});
  }
}

async function ensureStream(jsm: JetStreamManager, c: NatsSinkConfig): Promise<void> {
  const limits = {
    subjects: [`${c.subjectPrefix}.>`],
    max_age: c.maxAgeSeconds * 1000 * NANOS_PER_MS,
    max_bytes: c.maxBytes,
    // JetStream refuses a duplicate window longer than the age limit: no message outlives its key anyway.
    duplicate_window: Math.min(c.duplicateWindowSeconds, c.maxAgeSeconds) * 1000 * NANOS_PER_MS,
  };
  const exists = await jsm.streams.info(c.stream).then(
    () => true,
    () => false,
  );
  if (exists) await jsm.streams.update(c.stream, limits);
  else await jsm.streams.add({ name: c.stream, ...limits });
}
