#!/usr/bin/env node
// `pnpm test`: every package's tests, all of them even when one package fails (turbo --continue), then one
// line that sums them up and names what was not run for want of PostgreSQL, Redis, NATS or Chromium (issue 23
// point 5; in CI, EVENTS_TEST_REQUIRE_SERVICES=1 turns each such skip into a failure, issue 36). The tests print those reasons themselves (test/support/postgres.ts, redis.ts, the browser tests);
// this only gathers them, so a run that skipped something never reads as a plain green.
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';

const repo = resolve(import.meta.dirname, '..');
const ansi = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');

/** Counts of vitest's "Tests" line per package, and the skip reasons the tests printed. */
const counts = new Map();
const reasons = new Set();
const failedTasks = new Set();

function read(line) {
  const plain = line.replace(ansi, '');
  const task = /^(\S+):test: (.*)$/.exec(plain);
  const text = task ? task[2] : plain;
  const tests = /^\s*Tests\s+(.*)\(\d+\)\s*$/.exec(text);
  if (task && tests) {
    const c = counts.get(task[1]) ?? { passed: 0, failed: 0, skipped: 0 };
    for (const [, n, kind] of tests[1].matchAll(/(\d+) (passed|failed|skipped|todo)/g))
      if (kind in c) c[kind] += Number(n);
    counts.set(task[1], c);
  }
  // test/support/services.ts: `*** <service> <why>: the tests that need it are SKIPPED ***`.
  const service =
    /\*\*\* (PostgreSQL|Redis|NATS JetStream|Chromium) at (\S+) (.*): the tests that need it are SKIPPED/.exec(
      text,
    );
  if (service) reasons.add(`${service[1]} (${service[3]} at ${service[2]})`);
  const project = /\*\*\* PostgreSQL or Redis is unreachable .*: the "postgres" test project is SKIPPED/.test(
    text,
  );
  if (project)
    reasons.add('PostgreSQL or Redis (the "postgres" project of the server: its HTTP tests on them)');
  if (/browser test skipped: .* is not installed/.test(text))
    reasons.add('Chromium (/usr/bin/chromium not installed: apt-get install chromium)');
  // turbo's closing line: `Failed:    @org/a#test, @org/b#test`.
  if (/^\s*Failed:\s/.test(text))
    for (const [, name] of text.matchAll(/([^\s,]+)#test/g)) failedTasks.add(name);
}

// One package's tests at a time: the server's own suite holds tests of memory after load and of timing (the
// fuzz run's RSS bound, C59; crash tests under load), which other packages' suites on the same two cores
// made fail where they pass on a quiet box.
// `pnpm test:quick` (--quick): no service, no browser and no slow test file (EVENTS_TEST_QUICK=1, see
// vitest.shared.ts), so nothing timing-sensitive runs and two packages can share the cores.
const quick = process.argv.includes('--quick');
const args = process.argv.slice(2).filter((a) => a !== '--quick');
const child = spawn('turbo', ['run', 'test', '--continue', `--concurrency=${quick ? 2 : 1}`, ...args], {
  cwd: repo,
  env: quick ? { ...process.env, EVENTS_TEST_QUICK: '1', EVENTS_TEST_REQUIRE_SERVICES: '0' } : process.env,
  stdio: ['inherit', 'pipe', 'pipe'],
  shell: process.platform === 'win32',
});
for (const [from, to] of [
  [child.stdout, process.stdout],
  [child.stderr, process.stderr],
]) {
  let rest = '';
  from.on('data', (d) => {
    to.write(d);
    const lines = (rest + String(d)).split('\n');
    rest = lines.pop() ?? '';
    for (const l of lines) read(l);
  });
  from.on('end', () => read(rest));
}
child.on('exit', (code) => {
  const sum = { passed: 0, failed: 0, skipped: 0 };
  for (const c of counts.values()) for (const k of Object.keys(sum)) sum[k] += c[k];
  const ok = code === 0;
  const parts = [
    `pnpm ${quick ? 'test:quick' : 'test'}: ${ok ? 'passed' : 'FAILED'}: ${counts.size} packages, ${sum.passed} tests passed, ${sum.failed} failed, ${sum.skipped} skipped`,
  ];
  if (failedTasks.size) parts.push(`failed in ${[...failedTasks].join(', ')}`);
  if (quick)
    parts.push(
      'a quick run: no PostgreSQL, Redis, NATS or Chromium and no slow test file (`pnpm test` runs every test)',
    );
  else
    parts.push(
      reasons.size
        ? `not run for want of ${[...reasons].join(', ')} (see README: "What a complete test run needs")`
        : 'nothing skipped for want of PostgreSQL, Redis, NATS or Chromium',
    );
  process.stdout.write(`\n${parts.join('; ')}\n`);
  process.exit(code ?? 1);
});
