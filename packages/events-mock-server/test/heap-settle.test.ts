// C110: after a load the heap gives back what the load grew it to: one full collection once the server has
// had no request for a while, none while requests come, none on a server that never had a load; a request
// ending is load too (C116).
import { EventEmitter } from 'node:events';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { fullCollector, settleHeapWhenIdle } from '../src/core/heap-settle.js';
import { type RunningServer, startServer } from '../src/server.js';

let server: RunningServer;
beforeAll(async () => {
  server = await startServer({});
});
afterAll(() => server.close());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('one collection once a load has ended; none during it, none without one', () => {
  vi.useFakeTimers();
  const http = new EventEmitter();
  let collections = 0;
  const settle = settleHeapWhenIdle(http, { idleMs: 1000, collect: () => collections++ });
  try {
    // No request yet: quiet ticks are no end of a load.
    vi.advanceTimersByTime(5000);
    expect(collections).toBe(0);
    // A request every 100 ms for 10 s: every tick sees some.
    for (let t = 0; t < 100; t++) {
      http.emit('request');
      vi.advanceTimersByTime(100);
    }
    expect(collections).toBe(0);
    // The first tick with no request after the load collects, within two idle times, once.
    vi.advanceTimersByTime(2000);
    expect(collections).toBe(1);
    vi.advanceTimersByTime(60_000);
    expect(collections).toBe(1);
    expect(settle.settled).toBe(1);
    // Another load, another collection.
    http.emit('request');
    vi.advanceTimersByTime(2000);
    expect(collections).toBe(2);
    // Stopped: requests are no longer heard.
    settle.stop();
    http.emit('request');
    vi.advanceTimersByTime(5000);
    expect(collections).toBe(2);
    expect(http.listenerCount('request')).toBe(0);
  } finally {
    settle.stop();
    vi.useRealTimers();
  }
});

test('a request ending is load too: a collection follows the end of long requests (C116)', () => {
  vi.useFakeTimers();
  const http = new EventEmitter();
  let collections = 0;
  const settle = settleHeapWhenIdle(http, { idleMs: 1000, collect: () => collections++ });
  try {
    // Three slow uploads arrive together and stay open for 10 s: once their arrival is past, nothing comes
    // or ends, so one collection runs while they are still open ...
    const responses = Array.from({ length: 3 }, () => new EventEmitter());
    for (const res of responses) http.emit('request', {}, res);
    vi.advanceTimersByTime(10_000);
    expect(collections).toBe(1);
    // ... and another once they have ended (answered, or their sockets gone), when their memory is free.
    for (const res of responses) res.emit('close');
    vi.advanceTimersByTime(2000);
    expect(collections).toBe(2);
    vi.advanceTimersByTime(10_000);
    expect(collections).toBe(2);
  } finally {
    settle.stop();
    vi.useRealTimers();
  }
});

test("the requests of the server's HTTP server are the load", async () => {
  let collections = 0;
  const settle = settleHeapWhenIdle(server.app.server, { idleMs: 100, collect: () => collections++ });
  try {
    await (await fetch(`${server.url}/healthz`)).arrayBuffer();
    for (let i = 0; i < 100 && collections === 0; i++) await sleep(50);
    expect(collections).toBe(1);
  } finally {
    settle.stop();
  }
});

test("V8's full collection is found without --expose-gc, frees garbage, and leaves no global gc", async () => {
  const found = fullCollector();
  expect(found.ok).toBe(true);
  if (!found.ok) return;
  let garbage: unknown[] | null = Array.from({ length: 500_000 }, (_, i) => ({ i, s: `item ${i}` }));
  const before = process.memoryUsage().heapUsed;
  expect((garbage as unknown[]).length).toBe(500_000);
  garbage = null;
  found.collect();
  expect(process.memoryUsage().heapUsed).toBeLessThan(before - 20 * 1024 * 1024);
  expect(typeof (globalThis as { gc?: unknown }).gc).toBe('undefined');
  // Threads started later get no global gc either: the flag was on only for the collector's context.
  const inThread = await new Promise<string>((resolve, reject) => {
    const w = new Worker("require('node:worker_threads').parentPort.postMessage(typeof globalThis.gc)", {
      eval: true,
    });
    w.once('message', (m: string) => {
      resolve(m);
      void w.terminate();
    });
    w.once('error', reject);
  });
  expect(inThread).toBe('undefined');
});
