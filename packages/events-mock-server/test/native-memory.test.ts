// C59: glibc raises its mmap threshold after the first large free, so later multi-MiB bodies come from the
// heap and leave holes RSS never gives back. The bin fixes the threshold; an operator's environment wins.
// Its effect on RSS is what the fuzz harness's RSS invariant measures (README, Fuzzing): a mixed load of
// 27,000 requests ended 50 MB above its start without it, and 1 MB above with it.
import { readFileSync } from 'node:fs';
import { afterAll, expect, test } from 'vitest';
import { fullCollector } from '../src/core/heap-settle.js';
import { fixMmapThreshold, mallocTrimmer } from '../src/core/native-memory.js';
import { type Child, spawnBin } from './support/child.js';

const children: Child[] = [];
afterAll(() => {
  for (const c of children) c.proc.kill('SIGKILL');
});

test('on Linux with glibc the threshold is fixed; an environment that sets it keeps its own', () => {
  expect(fixMmapThreshold(128 * 1024, {})).toEqual({ done: true, bytes: 131072 });
  expect(fixMmapThreshold(128 * 1024, { MALLOC_MMAP_THRESHOLD_: '65536' })).toEqual({
    done: false,
    reason: 'set by the environment',
  });
  expect(fixMmapThreshold(128 * 1024, { GLIBC_TUNABLES: 'glibc.malloc.mmap_threshold=65536' })).toEqual({
    done: false,
    reason: 'set by the environment',
  });
});

async function startLine(env: Record<string, string>): Promise<unknown> {
  const c = await spawnBin(['--port', '0', '--db', ':memory:', '--log-level', 'debug'], env);
  children.push(c);
  const find = () =>
    c
      .stdout()
      .split('\n')
      .find((l) => l.includes('"native memory"'));
  // pino writes asynchronously: the line may follow the banner.
  for (let i = 0; i < 100 && !find(); i++) await new Promise((r) => setTimeout(r, 50));
  const line = find();
  c.proc.kill('SIGKILL');
  if (!line) return undefined;
  const { mmapThreshold, heapSettle, mallocTrim } = JSON.parse(line) as Record<string, unknown>;
  return { mmapThreshold, heapSettle, mallocTrim };
}

test('the bin fixes it at start and says so in its debug log, unless the environment did', async () => {
  expect(await startLine({ MALLOC_MMAP_THRESHOLD_: '131072' })).toEqual({
    mmapThreshold: { done: false, reason: 'set by the environment' },
    heapSettle: 'on',
    mallocTrim: 'on',
  });
  // C110, C116: the same line says the heap is collected, and the allocator trimmed, once a load has ended.
  expect(await startLine({})).toEqual({
    mmapThreshold: { done: true, bytes: 131072 },
    heapSettle: 'on',
    mallocTrim: 'on',
  });
}, 60_000);

test("C116: glibc's malloc_trim is found and gives back the free pages in the middle of the heap", () => {
  const found = mallocTrimmer();
  expect(found.ok).toBe(true);
  if (!found.ok) return;
  const rss = () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]) * 1024;
  // 100 MB in 32 KiB blocks (below the mmap threshold: glibc's heaps), every other one freed: holes that
  // `free` leaves in RSS, since a live block sits above each.
  const blocks = Array.from({ length: 3200 }, () => Buffer.allocUnsafeSlow(32 * 1024).fill(1));
  const kept = blocks.filter((_, i) => i % 2 === 1);
  blocks.length = 0;
  // Two collections, as the bin runs them: V8 frees the collected buffers' memory on a thread of its own
  // after a collection, and the next one first finishes that.
  const gc = fullCollector();
  if (gc.ok) {
    gc.collect();
    gc.collect();
  }
  const before = rss();
  found.trim();
  expect(rss()).toBeLessThan(before - 30 * 1024 * 1024);
  expect(kept.length).toBe(1600);
});
