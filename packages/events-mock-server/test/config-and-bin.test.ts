// Issue points 4 and 5: the YAML config validated at start (file, line, path, problem), the demo config,
// the bin (URL, tokens, a ready-to-paste curl line that sends one valid event) and startServer.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { ConfigError, loadConfigFile, parseConfigText, startServer } from '../src/index.js';
import { runBin, spawnBin } from './support/child.js';
import { A, T } from './support/fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'ems-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function issuesOf(text: string): string {
  try {
    parseConfigText(text, 'bad.yaml');
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('config validation', () => {
  test('every problem is reported with the file, the line, the path and what is wrong', () => {
    const msg = issuesOf(`ad_accounts:
  - id: "12x"
    currency: usd
  - id: "12x"
apps:
  - { id: "1", tier: gold }
users:
  - id: u1
    roles: [{ ad_account: "999" }]
tokens:
  - { kind: conversion, token: short, ad_account: "12x" }
  - { kind: oauth, token: ${T.oauthStd}, user: nobody, app: "2", scopes: [ads:fly] }
  - { kind: magic }
colour: blue
`);
    for (const want of [
      'bad.yaml:2:',
      'ad_accounts[0].id: must match',
      'ad_accounts[0].currency: must be an ISO-4217 code',
      'ad_accounts[1].id: duplicate ad account id',
      'bad.yaml:6:',
      'apps[0].tier: must be one of trial, standard',
      'users[0].roles[0].ad_account: names no ad account',
      'tokens[0].token: must be 16 to 512 printable characters',
      'tokens[1].user: names no user',
      'tokens[1].app: names no app',
      'tokens[1].scopes[0]: must be one of ads:read, ads:write',
      'tokens[2].kind: must be conversion or oauth',
      'colour: is not a config key here',
    ])
      expect(msg).toContain(want);
    // A token is never echoed back, even a bad one.
    expect(msg).not.toContain('short');
    expect(msg).not.toContain(T.oauthStd);
  });

  test('value problems and cross-section problems come in one run, each at its line', () => {
    const msg = issuesOf(`ad_accounts: [{id: "1", owner: bob}]
tokens:
  - {kind: conversion, ad_account: "1"}
  - {kind: oauth, token: ${'a'.repeat(20)}, sha256: ${'a'.repeat(64)}, user: u, app: a, scopes: [], extra: 1}
  - {token: ${'b'.repeat(20)}}
server: {port: 70000}
log_level: loud
`);
    for (const want of [
      'bad.yaml:4:',
      'tokens[1].extra: is not a config key here; allowed: id, token, sha256, revoked, kind, user, app, scopes',
      'bad.yaml:5:5 tokens[2].kind: is missing',
      'server.port: must be an integer from 0 to 65535; received number 70000',
      'log_level: must be one of fatal, error, warn, info, debug, trace, silent; received "loud"',
      'ad_accounts[0].owner: names no user of users: "bob"',
      'tokens[0]: needs token (the token) or sha256 (its SHA-256, hex)',
      'tokens[1]: give token or sha256, not both',
      'tokens[1].user: names no user of users: "u"',
      'tokens[1].app: names no app of apps: "a"',
    ])
      expect(msg).toContain(want);
    expect(msg).toContain('(9 problems)');
    expect(msg).not.toContain('b'.repeat(20));
  });

  test('a token given twice, once in clear and once as the admin token, is refused', () => {
    expect(
      issuesOf(
        `ad_accounts: [{id: "1"}]\nadmin_token: ${'c'.repeat(20)}\ntokens: [{kind: conversion, token: ${'c'.repeat(20)}, ad_account: 1}]\n`,
      ),
    ).toContain('admin_token: is the same token as another entry; every token must be distinct');
  });

  test('YAML syntax errors name the line', () => {
    expect(issuesOf('ad_accounts: [\n  - id: 1\n')).toMatch(
      /bad\.yaml:\d+:\d+ \(top level\): not valid YAML/,
    );
  });

  test('a missing file names the file', () => {
    expect(() => loadConfigFile(join(dir, 'nope.yaml'))).toThrow(/nope\.yaml.*cannot be read: ENOENT/s);
  });

  test('a good file: ids may be numbers in YAML, tokens may be given as SHA-256, defaults apply', () => {
    const c = parseConfigText(
      `ad_accounts: [{ id: ${A} }]\ntokens: [{ kind: conversion, sha256: ${'a'.repeat(64)}, ad_account: ${A} }]\n`,
      'ok.yaml',
    );
    expect(c.directory.accounts).toEqual([{ id: A, name: A, currency: 'USD', ownerUserId: null }]);
    expect(c.directory.tokens[0]?.sha256.toString('hex')).toBe('a'.repeat(64));
  });

  test('the bin refuses a bad config with exit code 1 and the problems', async () => {
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, 'ad_accounts:\n  - id: nope\n');
    const r = await runBin(['--config', file, '--db', ':memory:']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${file}:2:`);
    expect(r.stderr).toContain('ad_accounts[0].id: must match');
  }, 30_000);

  test('a store URL of another form is a config problem at storage.url, and never repeated (C47)', () => {
    const msg = issuesOf('ad_accounts: [{id: "1"}]\nstorage:\n  url: mysql://root:secret@db/events\n');
    expect(msg).toContain(
      'storage.url: must be sqlite:PATH, :memory: or postgres://[user[:password]@]host[:port]/database',
    );
    expect(msg).not.toContain('secret');
    expect(issuesOf('ad_accounts: [{id: "1"}]\nstorage:\n  url: "sqlite:"\n')).toContain(
      'storage.url: sqlite: needs a file path',
    );
  });

  test('the bin: a bad --store or DATABASE_URL is exit code 2 with the accepted forms (C47)', async () => {
    const flag = await runBin(['--store', 'redis://127.0.0.1:6379']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain('--store must be sqlite:PATH, :memory: or postgres://');
    const env = await runBin([], { DATABASE_URL: 'mongodb://x' });
    expect(env.code).toBe(2);
    expect(env.stderr).toContain('DATABASE_URL must be sqlite:PATH');
    const both = await runBin(['--store', ':memory:', '--db', ':memory:']);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--store and --db both name the store');
  }, 30_000);

  test('C100: the delivery section is checked: kinds, URLs, one token source, distinct names', () => {
    const issues = issuesOf(
      `ad_accounts: [{id: "1"}]
delivery:
  sinks:
    - { kind: conversions_api, url: "ftp://x", token_env: A, token_file: /t }
    - { name: s, kind: nats, url: "nats://127.0.0.1:4222" }
    - { name: s, kind: kafka }
  max_attempts: 0
`,
    );
    expect(issues).toContain(
      'delivery.sinks[0].url: must be a URL such as https://api.pinterest.com; received "ftp://x"',
    );
    expect(issues).toContain(
      'delivery.sinks[0]: needs token_env (an environment variable) or token_file (a file) holding the upstream token, one of them',
    );
    expect(issues).toContain('delivery.sinks[2].kind: must be conversions_api or nats; received "kafka"');
    expect(issues).toContain('delivery.sinks[2].name: duplicate sink name "s"');
    expect(issues).toContain(
      'delivery.max_attempts: must be an integer from 1 to 1000000; received number 0',
    );
  });

  test('C100: --forward needs its token in the environment; --forward-account needs --forward', async () => {
    const noToken = await runBin(['--forward', 'http://127.0.0.1:1'], { EVENTS_FORWARD_TOKEN: '' });
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toContain(
      '--forward needs the upstream token in the environment variable EVENTS_FORWARD_TOKEN',
    );
    const alone = await runBin(['--forward-account', '1']);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain('--forward-account needs --forward URL');
    // C113: a password in the URL is refused and never printed; the token goes in the environment.
    const withPassword = await runBin(['--forward', 'https://user:hunter2-secret@upstream.example'], {
      EVENTS_FORWARD_TOKEN: 'x'.repeat(20),
    });
    expect(withPassword.code).toBe(2);
    expect(withPassword.stderr).toContain(
      '--forward must not hold a user name or password: put the upstream token in the environment variable EVENTS_FORWARD_TOKEN; received https://***@upstream.example/',
    );
    expect(withPassword.stderr + withPassword.stdout).not.toContain('hunter2');
    const badNats = await runBin(['--publish', 'http://x']);
    expect(badNats.code).toBe(2);
    expect(badNats.stderr).toContain(
      '--publish must be a NATS URL such as nats://127.0.0.1:4222; received http://x',
    );
  }, 30_000);

  test('the bin refuses unknown flags with exit code 2 and its usage', async () => {
    const r = await runBin(['--nope']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Usage: events-mock-server');
  }, 30_000);
});

describe('demo config and the bin', () => {
  test('prints the URL, the demo tokens and a curl line that sends one valid event', async () => {
    const child = await spawnBin(['--port', '0', '--db', ':memory:']);
    try {
      await new Promise((r) => setTimeout(r, 200));
      const out = child.stdout();
      for (const label of ['ad account', 'conversion token', 'OAuth token', 'admin token'])
        expect(out).toContain(label);
      const curl = /^\s*(curl .*)$/m.exec(out)?.[1];
      expect(curl).toBeTruthy();
      // The demo tokens are printed, never logged.
      const tokens = [...out.matchAll(/demo_(?:conv|oauth|admin)_[A-Za-z0-9_-]+/g)].map((m) => m[0]);
      expect(tokens.length).toBeGreaterThanOrEqual(3);
      // Run the line as printed when curl exists; else send the same request with fetch.
      let body: string;
      try {
        body = execFileSync('sh', ['-c', curl as string], { encoding: 'utf8', timeout: 10_000 });
      } catch {
        const url = /'(http[^']+)'/.exec(curl as string)?.[1] as string;
        const auth = /-H 'Authorization: ([^']+)'/.exec(curl as string)?.[1] as string;
        const data = /-d '(.*)'$/.exec(curl as string)?.[1] as string;
        body = await (
          await fetch(url, {
            method: 'POST',
            headers: { authorization: auth, 'content-type': 'application/json' },
            body: data,
          })
        ).text();
      }
      const res = JSON.parse(body);
      expect(res.num_events_processed).toBe(1);
      expect(res.events[0]).toEqual({ status: 'processed', error_message: null, warning_message: null });
      for (const t of tokens) expect(child.stderr()).not.toContain(t);
    } finally {
      child.proc.kill('SIGINT');
      expect(await child.exited).toBe(0);
    }
  }, 30_000);

  test('startServer without a config returns the demo credentials', async () => {
    const server = await startServer();
    try {
      expect(server.demo).not.toBeNull();
      const d = server.demo!;
      const r = await fetch(`${server.url}/v5/ad_accounts/${d.adAccountId}/custom_event_types`, {
        headers: { authorization: `Bearer ${d.oauthToken}` },
      });
      expect(r.status).toBe(200);
      const admin = await fetch(`${server.url}/admin/events`, {
        headers: { authorization: `Bearer ${d.adminToken}` },
      });
      expect(admin.status).toBe(200);
    } finally {
      await server.close();
    }
  });
});
