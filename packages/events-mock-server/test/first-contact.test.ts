// What a new user meets first (issue 23 point 6): the example config starts the bin, whose first line is
// its banner (no JSON log line before it); GET / points to the docs and the inspector; --version; and a
// store URL whose driver is not installed names the package to install (C95).
import { createRequire } from 'node:module';
import { afterAll, describe, expect, test } from 'vitest';
import { loadOptional } from '../src/core/optional-package.js';
import { type Child, runBin, spawnBin } from './support/child.js';

const { version } = createRequire(import.meta.url)('../package.json') as { version: string };

describe('first contact', () => {
  let child: Child | undefined;
  afterAll(async () => {
    child?.proc.kill('SIGTERM');
    await child?.exited;
  });

  test('the example config starts the bin; the banner is the first line; GET / names where to go', async () => {
    child = await spawnBin(['--config', 'examples/config.yaml', '--port', '0', '--db', ':memory:']);
    expect(child.stdout().split('\n')[0]).toBe(
      `events-mock-server listening on ${child.url} (store: sqlite:memory; limits: memory)`,
    );
    const r = await fetch(`${child.url}/`);
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({
      service: 'events-mock-server',
      docs: '/docs/',
      openapi: '/openapi.yaml',
      inspector: '/inspector/',
      health: '/healthz',
      ready: '/readyz',
      metrics: '/metrics',
    });
    // The example's conversion token works as written.
    const events = await fetch(`${child.url}/v5/ad_accounts/549755885175/events?test=true`, {
      method: 'POST',
      headers: {
        authorization: 'Bearer change-me-conversion-token-0001',
        'content-type': 'application/json',
      },
      body: '{"data":[]}',
    });
    expect(events.status).toBe(400);
  }, 30_000);

  test('--version and -v print the package version', async () => {
    for (const flag of ['--version', '-v']) {
      const r = await runBin([flag]);
      expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 0, stdout: `${version}\n` });
    }
  });

  test('a driver that is not installed is named, with the command that installs it (C95)', async () => {
    await expect(
      loadOptional(
        () => import('no-such-driver-package' as string),
        'no-such-driver-package',
        'a postgres:// store',
      ),
    ).rejects.toThrow(
      'a postgres:// store needs the package no-such-driver-package, which is not installed: run npm install no-such-driver-package (it is an optional peer dependency of @org/events-mock-server)',
    );
  });
});
