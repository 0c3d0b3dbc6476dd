// C8: accounts, apps, users and tokens; tokens stored as digests; nothing secret in logs.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import Database from 'better-sqlite3';
import pino from 'pino';
import { afterAll, describe, expect, test } from 'vitest';
import { A, B, C, event, sha256, T } from './support/fixtures.js';
import { startHarness } from './support/server.js';

const dir = mkdtempSync(join(tmpdir(), 'ems-c8-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('C8 tokens and accounts', () => {
  test('a conversion token reaches its one ad account; an OAuth token the accounts its user owns or has a role on', async () => {
    const h = await startHarness();
    try {
      const ok = (account: string, token: string) =>
        h.send(account, token, [event(h.nowS())]).then((r) => r.status);
      expect(await ok(A, T.convA)).toBe(200);
      expect(await ok(B, T.convA)).toBe(403); // a token for one account refused on another
      expect(await ok(A, T.convB)).toBe(403);
      expect(await ok(A, T.oauthStd)).toBe(200); // alice owns A
      expect(await ok(B, T.oauthStd)).toBe(403);
      expect(await ok(B, T.oauthBob)).toBe(200); // bob has a role on B
      expect(await ok(A, T.oauthBob)).toBe(403);
      expect(await ok(C, T.oauthBob)).toBe(403);
    } finally {
      await h.close();
    }
  });

  test('tokens are stored as SHA-256 digests, never in clear', async () => {
    const db = join(dir, 'tokens.db');
    const h = await startHarness({ db });
    await h.send(A, T.convA, [event(h.nowS())]);
    await h.close();
    const raw = readFileSync(db);
    const wal = (() => {
      try {
        return readFileSync(`${db}-wal`);
      } catch {
        return Buffer.alloc(0);
      }
    })();
    for (const token of Object.values(T)) {
      expect(raw.includes(token)).toBe(false);
      expect(wal.includes(token)).toBe(false);
    }
    const conn = new Database(db, { readonly: true });
    const rows = conn.prepare('SELECT id, sha256 FROM tokens').all() as { id: string; sha256: Buffer }[];
    conn.close();
    expect(rows.find((r) => r.id === 'conv-a')?.sha256.toString('hex')).toBe(sha256(T.convA));
  });

  test('log lines carry a request id and never a token or a hashed identifier', async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const h = await startHarness({ logger: pino({ level: 'trace' }, stream) });
    try {
      const e = event(h.nowS());
      await h.send(A, T.convA, [e]);
      await h.send(B, T.convA, [e]);
      await h.call('POST', `/v5/ad_accounts/${A}/events`, { raw: '{bad', token: T.oauthStd });
      await h.call('GET', '/admin/events', { token: T.admin });
      await h.call('POST', `/v5/ad_accounts/${A}/events`, {
        body: { data: [e] },
        token: 'unknown-token-abcdefghijklmn',
      });
    } finally {
      await h.close();
    }
    const text = lines.join('');
    expect(lines.length).toBeGreaterThanOrEqual(5);
    for (const token of [...Object.values(T), 'unknown-token-abcdefghijklmn'])
      expect(text).not.toContain(token);
    expect(text).not.toContain(sha256('jane@example.com'));
    for (const token of Object.values(T)) expect(text).not.toContain(sha256(token));
    const requestLines = lines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'request');
    expect(requestLines.length).toBe(5);
    for (const l of requestLines) expect(typeof l.reqId).toBe('string');
  });
});
