// C100: accepted events published to NATS JetStream (the real server at 127.0.0.1:4222): one subject per
// ad account, the dedup key as Nats-Msg-Id, the stream created with the config's limits; a consumer written
// as the README shows reads every accepted event once by key; NATS out of reach and back loses nothing.
import { randomUUID } from 'node:crypto';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { expect, test } from 'vitest';
import type { Outbox } from '../src/store/interface/outbox.js';
import { spawnBin } from './support/child.js';
import { A, B, event, T, testConfig } from './support/fixtures.js';
import { NATS_URL, natsReachable } from './support/nats.js';
import { startHarness } from './support/server.js';
import { startTcpProxy } from './support/tcp-proxy.js';

/** Without a JetStream server the tests skip with a reason; CI fails instead (support/services.ts). */
const natsUp = await natsReachable();

/** A config whose one sink `stream` publishes to a stream and subjects of the test's own. */
function streamOfItsOwn(url: string, delivery: Record<string, unknown> = {}) {
  const tag = randomUUID().slice(0, 8);
  const stream = `EVENTS_TEST_${tag}`;
  const prefix = `events-test-${tag}`;
  const sink = { name: 'stream', kind: 'nats', url, stream, subject_prefix: prefix, max_age_seconds: 3600 };
  return { stream, prefix, config: { ...testConfig(), delivery: { sinks: [sink], ...delivery } } };
}

async function until(done: () => Promise<boolean>): Promise<void> {
  while (!(await done())) await new Promise((r) => setTimeout(r, 50));
}

test.skipIf(!natsUp)(
  'every accepted event is published once, keyed, on its account subject',
  {
    timeout: 120_000,
  },
  async () => {
    const { stream, prefix, config } = streamOfItsOwn(NATS_URL);
    const h = await startHarness({ config });
    const nc = await connect({ servers: NATS_URL });
    try {
      const ids = Array.from({ length: 300 }, (_, i) => `n-${i}`);
      expect(
        (
          await h.send(
            A,
            T.convA,
            ids.map((id) => event(h.nowS(), { event_id: id })),
          )
        ).status,
      ).toBe(200);
      // A repeat is a duplicate here (C6): stored once, so published once.
      expect((await h.send(A, T.convA, [event(h.nowS(), { event_id: 'n-0' })])).status).toBe(200);
      expect((await h.send(B, T.convB, [event(h.nowS(), { event_id: 'b-0' })])).status).toBe(200);
      // Test mode stores nothing (C7), so nothing is published.
      expect((await h.send(A, T.convA, [event(h.nowS(), { event_id: 'test-0' })], '?test=true')).status).toBe(
        200,
      );
      const outbox = h.server.store as unknown as Outbox;
      await until(async () => (await outbox.outboxStats()).length === 0);

      const jsm = await jetstreamManager(nc);
      const info = await jsm.streams.info(stream);
      expect(info.config.subjects).toEqual([`${prefix}.>`]);
      expect(info.config.max_age).toBe(3600 * 1e9);
      expect(info.state.messages).toBe(301);

      // The README's consumer: an ordered consumer reading the stream, the key in Nats-Msg-Id.
      const js = jetstream(nc);
      const consumer = await js.consumers.get(stream);
      const seen: [string, string, string][] = [];
      const messages = await consumer.consume();
      for await (const m of messages) {
        const e = m.json<{ event_id: string }>();
        seen.push([m.subject, m.headers?.get('Nats-Msg-Id') ?? '', e.event_id]);
        if (seen.length === 301) break;
      }
      expect(seen.slice(0, 300)).toEqual(ids.map((id) => [`${prefix}.${A}`, `${A}:checkout:${id}`, id]));
      expect(seen[300]).toEqual([`${prefix}.${B}`, `${B}:checkout:b-0`, 'b-0']);
      await jsm.streams.delete(stream);
    } finally {
      await nc.close();
      await h.close();
    }
  },
);

test.skipIf(!natsUp)(
  '--publish prints one line naming the sink and publishes to the default stream',
  {
    timeout: 60_000,
  },
  async () => {
    const child = await spawnBin([
      '--port',
      '0',
      '--db',
      ':memory:',
      '--publish',
      NATS_URL,
      '--log-level',
      'warn',
    ]);
    try {
      await until(async () => child.stdout().includes('delivery:'));
      expect(child.stdout()).toContain(
        `delivery: publish publishes all ad accounts to NATS ${NATS_URL} (stream EVENTS, subjects events.<ad account>)`,
      );
      const nc = await connect({ servers: NATS_URL });
      try {
        expect((await (await jetstreamManager(nc)).streams.info('EVENTS')).config.subjects).toEqual([
          'events.>',
        ]);
      } finally {
        await nc.close();
      }
    } finally {
      child.proc.kill('SIGTERM');
      expect(await child.exited).toBe(0);
    }
  },
);

test.skipIf(!natsUp)(
  'NATS out of reach: failures recorded, the sink unavailable, then every event published once',
  {
    timeout: 120_000,
  },
  async () => {
    const nats = new URL(NATS_URL);
    // The sink reaches NATS through a proxy the test cuts: NATS itself stays up for the other tests.
    const proxy = await startTcpProxy(nats.hostname, Number(nats.port || 4222));
    const { stream, config } = streamOfItsOwn(`nats://127.0.0.1:${proxy.port}`, {
      retry_base_ms: 50,
      retry_max_seconds: 1,
      timeout_seconds: 1,
    });
    const h = await startHarness({ config });
    const nc = await connect({ servers: NATS_URL });
    const sink = async () => (await h.call('GET', '/admin/delivery', { token: T.admin })).body.sinks[0];
    try {
      const send = async (from: number, n: number) =>
        expect(
          (
            await h.send(
              A,
              T.convA,
              Array.from({ length: n }, (_, i) => event(h.nowS(), { event_id: `x-${from + i}` })),
            )
          ).status,
        ).toBe(200);
      await send(0, 50);
      await until(async () => (await sink()).delivered === 50);
      await proxy.cut();
      await send(50, 50);
      await until(async () => (await sink()).failures > 0);
      const ready = await h.call('GET', '/readyz');
      expect(ready.status).toBe(200);
      expect(ready.body.dependencies.find((d: { name: string }) => d.name === 'sink:stream').status).toBe(
        'unavailable',
      );
      expect((await sink()).pending).toBe(50);
      await proxy.restore();
      await until(async () => (await sink()).pending === 0 && (await sink()).dead === 0);
      // Each event once in the stream, whatever was sent again around the cut (Nats-Msg-Id, C100).
      const info = await (await jetstreamManager(nc)).streams.info(stream);
      expect(info.state.messages).toBe(100);
      await (await jetstreamManager(nc)).streams.delete(stream);
    } finally {
      await nc.close();
      await h.close();
      await proxy.close();
    }
  },
);
