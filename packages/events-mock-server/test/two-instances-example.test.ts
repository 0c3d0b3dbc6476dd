// The README's "try it" of two instances runs as written (issue 23 point 4): examples/two-instances.ts
// starts two instances on one PostgreSQL and one Redis with one generated demo config, sends the same event
// to both and 15 test requests over both, and says what happened.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, test } from 'vitest';
import { createTestDatabase, postgresReachable, type TestDatabase } from './support/postgres.js';
import { REDIS_TEST_URL, redisReachable, testPrefix } from './support/redis.js';

const up = (await postgresReachable()) && (await redisReachable());
const pkg = fileURLToPath(new URL('..', import.meta.url));

describe.skipIf(!up)('examples/two-instances.ts --try', () => {
  let db: TestDatabase | undefined;
  let keys: ReturnType<typeof testPrefix> | undefined;
  afterEach(async () => {
    await db?.drop();
    await keys?.drop();
  });

  test('shares the demo tokens, the store and the limits between both instances', async () => {
    db = await createTestDatabase();
    keys = testPrefix();
    const args = [
      '--try',
      '--ports',
      '0,0',
      '--store',
      db.url,
      '--limits',
      REDIS_TEST_URL,
      '--prefix',
      keys.prefix,
    ];
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--conditions=@org/source', '--import', 'tsx', 'examples/two-instances.ts', ...args],
      { cwd: pkg, timeout: 60_000 },
    );
    const lines = stdout.trim().split('\n');
    expect(lines).toContain(
      'same event_id to both at once: processed and processed, 1 with the duplicate warning; stored 1 time(s)',
    );
    // On a machine too busy to send 15 requests in one second, the line names the seconds it took.
    expect(lines.some((l) => /^15 test requests over both in /.test(l))).toBe(true);
    expect(lines.at(-1)).toBe('both instances share the store and the limits');
  }, 90_000);
});
