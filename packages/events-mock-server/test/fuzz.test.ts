// Issue 9 item 6 (C44): the fuzz harness in CI mode: 20,000 requests or 55 s, whichever comes first,
// against the real bin on loopback, every category of fuzz/generators.ts but the heaviest cases (those run
// in the long mode, `pnpm --filter @org/events-mock-server fuzz`). The invariants are the issue's: no 5xx,
// no hang past 5 s, RSS back within 20% of its start, a valid request still answered and stored, the stored
// rows equal to what the answers acknowledged. Event-loop lag p99 depends on the machine's load (2 shared
// cores in CI, the client on the same cores): printed here, enforced (under 50 ms) by the long mode.
import { expect, test } from 'vitest';
import { runFuzz } from '../fuzz/run.js';

test('fuzz, CI mode: every invariant holds', async () => {
  const report = await runFuzz({
    requests: 20_000,
    seconds: 55,
    warmupSeconds: 3,
    // Slow and half-sent requests hold a client for seconds: 64 keep the rest flowing (about 20,000 in 60 s).
    concurrency: 64,
    heavy: false,
    lagBoundMs: Number.POSITIVE_INFINITY,
  });
  process.stdout.write(
    `fuzz CI: ${report.requests} requests in ${report.seconds.toFixed(1)} s, ${report.acknowledged} acknowledged, ` +
      `${report.stored} stored, RSS ${report.rssStartMB}/${report.rssPeakMB}/${report.rssEndMB} MB, lag p99 ` +
      `${report.lagP99Ms} ms, statuses ${JSON.stringify(report.byStatus)}\n`,
  );
  expect(report.violations).toEqual([]);
  expect(report.requests).toBeGreaterThan(500);
  expect(report.stored).toBe(report.acknowledged);
}, 120_000);
