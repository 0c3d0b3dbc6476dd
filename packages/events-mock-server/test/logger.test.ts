import { Writable } from 'node:stream';
import { describe, expect, test } from 'vitest';
import { createLogger } from '../src/core/logger.js';

/** The lines a logger writes, parsed. */
function capture() {
  const lines: Record<string, unknown>[] = [];
  const dest = new Writable({
    write(chunk, _e, done) {
      for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l));
      done();
    },
  });
  return { lines, logger: createLogger('info', dest) };
}

describe('no token reaches a log line (C8)', () => {
  test('authorization and token at the top, in headers, and in any object with headers', () => {
    const { lines, logger } = capture();
    const headers = { authorization: 'Bearer secret-1', host: 'x' };
    const req = { method: 'POST', headers: { authorization: 'Bearer secret-2' } };
    logger.info({ authorization: 'Bearer secret-3', token: 'secret-4', headers, req, other: { n: 1 } }, 'm');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      authorization: '[redacted]',
      token: '[redacted]',
      headers: { authorization: '[redacted]', host: 'x' },
      req: { method: 'POST', headers: { authorization: '[redacted]' } },
      other: { n: 1 },
      msg: 'm',
    });
    expect(JSON.stringify(lines)).not.toContain('secret');
    // The logged objects themselves are left as they were.
    expect(headers.authorization).toBe('Bearer secret-1');
    expect(req.headers.authorization).toBe('Bearer secret-2');
  });

  test('a line without secrets is written as logged', () => {
    const { lines, logger } = capture();
    logger.info({ op: 'events/create', status: 200, headers: { host: 'x' } }, 'request');
    expect(lines[0]).toMatchObject({
      op: 'events/create',
      status: 200,
      headers: { host: 'x' },
      msg: 'request',
    });
    expect(lines[0]).not.toHaveProperty('authorization');
  });
});
