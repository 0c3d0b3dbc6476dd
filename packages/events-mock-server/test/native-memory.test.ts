// C59: glibc raises its mmap threshold after the first large free, so later multi-MiB bodies come from the
// heap and leave holes RSS never gives back. The bin fixes the threshold; an operator's environment wins.
// Its effect on RSS is what the fuzz harness's RSS invariant measures (README, Fuzzing): a mixed load of
// 27,000 requests ended 50 MB above its start without it, and 1 MB above with it.
import { afterAll, expect, test } from 'vitest';
import { fixMmapThreshold } from '../src/core/native-memory.js';
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
  const { mmapThreshold, heapSettle } = JSON.parse(line) as { mmapThreshold: unknown; heapSettle: unknown };
  return { mmapThreshold, heapSettle };
}

test('the bin fixes it at start and says so in its debug log, unless the environment did', async () => {
  expect(await startLine({ MALLOC_MMAP_THRESHOLD_: '' })).toEqual({
    mmapThreshold: { done: false, reason: 'set by the environment' },
    heapSettle: 'on',
  });
  // C110: the same line says the heap is collected once a load has ended.
  expect(await startLine({})).toEqual({ mmapThreshold: { done: true, bytes: 131072 }, heapSettle: 'on' });
});
