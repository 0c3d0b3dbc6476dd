// The built `events` bin on real files against the real server (C58): summaries, --json reports, exit
// codes, credentials from the environment and never printed.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildBin, runBin } from './support/bin.js';
import { demoServer, event } from './support/server.js';

let s: Awaited<ReturnType<typeof demoServer>>;
let bin: string;
let dir: string;
let env: Record<string, string>;

beforeAll(async () => {
  bin = buildBin();
  s = await demoServer();
  dir = mkdtempSync(join(tmpdir(), 'events-cli-'));
  env = { EVENTS_TOKEN: s.creds.conversionToken, EVENTS_BASE_URL: s.url };
}, 120_000);
afterAll(async () => {
  await s?.close();
  rmSync(dir, { recursive: true, force: true });
});

function file(name: string, lines: unknown[]): string {
  const p = join(dir, name);
  writeFileSync(p, `${lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n')}\n`);
  return p;
}

describe('events send', () => {
  test('all processed: plain summary lines when not a terminal, exit 0, the token never printed', async () => {
    const f = file('ok.ndjson', [event('cli-1'), event('cli-2'), '', event('cli-3')]);
    const r = await runBin(bin, ['send', f, '--account', s.creds.adAccountId], env);
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines.slice(0, 10)).toEqual([
      'events read: 3',
      'sent: 3',
      'processed: 3',
      'failed: 0',
      'invalid (not sent): 0',
      'not sent: 0',
      'batches: 1',
      'requests retried: 0',
      'bad lines: 0',
      expect.stringMatching(/^seconds: [\d.]+$/),
    ]);
    expect(r.stdout + r.stderr).not.toContain(s.creds.conversionToken);
  });

  test('--json: failed events by message and by line, exit 1; stdin with -', async () => {
    const lines = [
      event('j-1'),
      event('j-2', { event_name: 'subscription' }),
      event('j-3'),
      event('j-4', { event_name: 'subscription' }),
    ];
    const input = `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`;
    const r = await runBin(
      bin,
      ['send', '-', '--account', s.creds.adAccountId, '--json', '--test'],
      env,
      input,
    );
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout);
    expect(report).toMatchObject({
      command: 'send',
      test: true,
      exitCode: 1,
      events: 4,
      badLines: 0,
      sent: 4,
      processed: 2,
      failed: 2,
      invalid: 0,
      notSent: 0,
      batches: 1,
      retried: 0,
    });
    expect(report.failedByMessage).toHaveLength(1);
    expect(report.failedByMessage[0].count).toBe(2);
    expect(report.failedByMessage[0].message).toContain('Invalid event_name: subscription');
    expect(report.problems.map((p: { line: number; status: string }) => [p.line, p.status])).toEqual([
      [2, 'failed'],
      [4, 'failed'],
    ]);
    expect(r.stdout + r.stderr).not.toContain(s.creds.conversionToken);
  });

  test('a line that is not a JSON object: the others are sent, exit 3', async () => {
    const f = file('bad.ndjson', [event('b-1'), '{"event_name": ', '[1,2]', event('b-2')]);
    const r = await runBin(bin, ['send', f, '--account', s.creds.adAccountId, '--json'], env);
    expect(r.code).toBe(3);
    const report = JSON.parse(r.stdout);
    expect([report.events, report.processed, report.badLines]).toEqual([2, 2, 2]);
    expect(report.problems.map((p: { line: number; status: string }) => [p.line, p.status])).toEqual([
      [2, 'bad_line'],
      [3, 'bad_line'],
    ]);
    expect(report.problems[1].message).toBe('not a JSON object: an array');
  });

  test('a wrong token: nothing sent, exit 2, the token not printed', async () => {
    const f = file('auth.ndjson', [event('a-1'), event('a-2')]);
    const token = 'wrong-secret-token-0123456789';
    const r = await runBin(bin, ['send', f, '--account', s.creds.adAccountId, '--token', token], {
      EVENTS_BASE_URL: s.url,
    });
    expect(r.code).toBe(2);
    expect(r.stdout).toContain('not sent: 2');
    expect(r.stdout).toContain('failed 2x: not sent: 401 Authentication failed.');
    expect(r.stdout + r.stderr).not.toContain(token);
  });

  test('usage errors exit 64: no token, no such file, a bad --concurrency', async () => {
    const f = file('u.ndjson', [event('u-1')]);
    const noToken = await runBin(bin, ['send', f, '--account', s.creds.adAccountId], {
      EVENTS_BASE_URL: s.url,
    });
    expect([noToken.code, noToken.stderr]).toEqual([64, 'error: --token or EVENTS_TOKEN is required\n']);
    const noFile = await runBin(bin, ['send', join(dir, 'none.ndjson'), '--account', '1'], env);
    expect([noFile.code, noFile.stderr]).toEqual([64, `error: no such file: ${join(dir, 'none.ndjson')}\n`]);
    const bad = await runBin(bin, ['send', f, '--account', '1', '--concurrency', '0'], env);
    expect(bad.code).toBe(64);
    expect(bad.stderr).toContain(
      "option '--concurrency <n>' argument '0' is invalid. must be a positive integer",
    );
  });
});

test('--version and -v print the package version, exit 0 (issue 23)', async () => {
  const { version } = JSON.parse(
    readFileSync(new URL('../../events-client/package.json', import.meta.url), 'utf8'),
  );
  for (const flag of ['--version', '-v'])
    expect(await runBin(bin, [flag])).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
});

describe('events validate and hash', () => {
  test('validate: one line per invalid event, exit 1; --json', async () => {
    const f = file('v.ndjson', [event('v-1'), event('v-2', { event_name: 'subscription' })]);
    const r = await runBin(bin, ['validate', f]);
    expect(r.code).toBe(1);
    expect(r.stdout.split('\n')[0]).toMatch(/^line 2: Invalid event_name: subscription\./);
    expect(r.stdout).toContain('valid: 1\ninvalid (not sent): 1\n');
    const j = JSON.parse((await runBin(bin, ['validate', f, '--json'])).stdout);
    expect([j.events, j.processed, j.invalid, j.exitCode]).toEqual([2, 1, 1, 1]);
    const ok = await runBin(bin, ['validate', file('v-ok.ndjson', [event('v-3')])]);
    expect(ok.code).toBe(0);
  });

  test('hash: raw user data in, normalized and hashed out, from stdin', async () => {
    const r = await runBin(
      bin,
      ['hash'],
      {},
      `{"em":" Jane@Example.com "}\n{"event_id":"h-1","user_data":{"em":"jane@example.com","client_ip_address":"203.0.113.5"}}\n{"fn":" Zoë ","customer_type":"returning"}\n`,
    );
    expect(r.code).toBe(0);
    const digest = '8c87b489ce35cf2e2f39f80e282cb2e804932a56a213983eeeb428407d43b52d';
    expect(
      r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual([
      { em: [digest] },
      { event_id: 'h-1', user_data: { em: [digest], client_ip_address: '203.0.113.5' } },
      // C119: a raw first name is hashed with ln's rule (sha256 of "zoë"); customer_type is kept as sent.
      {
        fn: ['2752b88686847fa5c86f47b94ce652b7b3f22a91c37617d451a4db9afa431450'],
        customer_type: 'returning',
      },
    ]);
  });
});
