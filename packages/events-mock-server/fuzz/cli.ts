import { parseArgs } from 'node:util';
import { runFuzz } from './run.js';

/**
 * Long mode of the fuzz harness (C44): `pnpm --filter @org/events-mock-server fuzz --requests 1000000`.
 * Prints the figures; exits 1 on any violation.
 */
const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '100000' },
    seconds: { type: 'string', default: '86400' },
    concurrency: { type: 'string', default: '64' },
    seed: { type: 'string', default: '1' },
    'warmup-seconds': { type: 'string', default: '10' },
    light: { type: 'boolean', default: false },
  },
});
// An interrupted run still ends its server (run.ts kills it on exit).
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));
const report = await runFuzz({
  requests: Number(values.requests),
  seconds: Number(values.seconds),
  concurrency: Number(values.concurrency),
  seed: Number(values.seed),
  warmupSeconds: Number(values['warmup-seconds']),
  heavy: !values.light,
  log: (l) => process.stdout.write(`${l}\n`),
});
process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
process.stdout.write(
  `fuzz: ${report.requests} requests in ${report.seconds.toFixed(1)} s (${Math.round(report.requests / report.seconds)}/s), ` +
    `(after ${report.warmupRequests} warm-up requests), ${report.acknowledged} events acknowledged, ${report.stored} stored, ` +
    `RSS cold ${report.rssColdMB}, start ${report.rssStartMB} -> peak ${report.rssPeakMB} -> ${report.rssEndMB} MB, ` +
    `event-loop lag p99 ${report.lagP99Ms} ms, ${report.violations.length} violations\n`,
);
process.exit(report.violations.length ? 1 : 0);
