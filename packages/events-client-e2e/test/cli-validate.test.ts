// `events validate` on a file of many bad events (issue 36): the first lines, a count of the rest and the
// summary by message, not one line per event; every line with --verbose. No server is needed.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { buildBin, runBin } from './support/bin.js';

let bin: string;
let dir: string;
beforeAll(() => {
  bin = buildBin();
  dir = mkdtempSync(join(tmpdir(), 'events-validate-'));
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** 600 events, every one with an event name no one registered. */
function manyBad(): string {
  const now = Math.floor(Date.now() / 1000);
  const lines = Array.from({ length: 600 }, (_, i) =>
    JSON.stringify({
      event_name: 'subscription',
      action_source: 'web',
      event_time: now,
      event_id: `bad-${i}`,
      user_data: { em: ['6a6c26195c3682faa816966af789717c3bfa834eee6c599d667d2b3429c27cfd'] },
    }),
  );
  const p = join(dir, 'bad.ndjson');
  writeFileSync(p, `${lines.join('\n')}\n`);
  return p;
}

test('600 bad events: the first lines, how many more, and the summary by message', async () => {
  const r = await runBin(bin, ['validate', manyBad()]);
  expect(r.code).toBe(1);
  const out = r.stdout.split('\n');
  const lines = out.filter((l: string) => l.startsWith('line '));
  // A few lines, in file order, and the rest counted.
  expect(lines.length).toBeGreaterThan(0);
  expect(lines.length).toBeLessThanOrEqual(20);
  expect(lines[0]).toMatch(/^line 1: Invalid event_name: subscription\./);
  expect(out).toContain(
    `… and ${600 - lines.length} more line(s) with problems (--verbose prints every one)`,
  );
  expect(out).toContain('invalid (not sent): 600');
  expect(
    out.find((l: string) => l.startsWith('failed 600x: Invalid event_name: subscription.')),
  ).toBeDefined();
});

test('--verbose prints every line', async () => {
  const r = await runBin(bin, ['validate', manyBad(), '--verbose']);
  expect(r.stdout.split('\n').filter((l: string) => l.startsWith('line '))).toHaveLength(600);
  expect(r.stdout).not.toContain('more line(s)');
});
