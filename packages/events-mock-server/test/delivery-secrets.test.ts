// C113: what is kept of an upstream's failure never holds a credential, whatever the upstream echoes; sink
// URLs with credentials are refused by the config with a message that does not repeat them.

import { LIMITS } from '@org/events-types';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { validateConfig } from '../src/config/validate.js';
import { describeHttpFailure, redactCredentials } from '../src/delivery/sanitize.js';
import { hasCredentials, withoutCredentials } from '../src/delivery/sink-url.js';
import { testConfig } from './support/fixtures.js';

const TOKEN = 'pina_AEAXXXXXWAAAAAAAGAAXXXXXXXXXXX';

describe('an upstream failure as kept', () => {
  test('status line and a short excerpt; credentials of every usual shape taken out', () => {
    expect(describeHttpFailure(503, 'Service Unavailable', 'try later', [TOKEN])).toBe(
      'HTTP 503 Service Unavailable: try later',
    );
    expect(describeHttpFailure(500, '', '', [TOKEN])).toBe('HTTP 500');
    const echoed = [
      `Authorization: Bearer ${TOKEN}`,
      'authorization=Basic dXNlcjpwYXNz',
      'x-api-key: 0123456789abcdef',
      '{"access_token":"abc.def.ghi"}',
      'password=hunter2',
      'see https://bob:s3cret@proxy.example/path',
      'session eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abcdefghijklmnop',
    ].join('\n');
    const kept = describeHttpFailure(502, 'Bad Gateway', echoed, [TOKEN]);
    for (const secret of [
      TOKEN,
      'dXNlcjpwYXNz',
      '0123456789abcdef',
      'abc.def.ghi',
      'hunter2',
      's3cret',
      'eyJ',
    ])
      expect(kept).not.toContain(secret);
    expect(kept.startsWith('HTTP 502 Bad Gateway: ')).toBe(true);
    expect(kept).not.toMatch(/\n/);
    expect(kept.length).toBeLessThanOrEqual(
      'HTTP 502 Bad Gateway: '.length + LIMITS.delivery_error_body_chars.value,
    );
  });

  test('the sink’s own token never survives, wherever an upstream puts it (property)', () => {
    const tokenChars = fc.stringMatching(/^[A-Za-z0-9_\-.]{4,64}$/);
    fc.assert(
      fc.property(tokenChars, fc.string(), fc.string(), (token, before, after) => {
        // The excerpt after the status line; the token's characters hold no ':' or space.
        const excerpt = describeHttpFailure(500, '', `${before}${token}${after}`, [token]).slice(8);
        return !excerpt.includes(token);
      }),
    );
    fc.assert(
      fc.property(tokenChars, fc.string(), (token, around) => {
        const kept = redactCredentials(`${around}${token}${around}`, [token]);
        // The only way the token may still show: `around` rebuilt it around the redaction (it holds it).
        return !kept.includes(token) || around.includes(token);
      }),
    );
  });
});

describe('sink URLs', () => {
  test('credentials in a sink URL are refused, and the message does not repeat them', () => {
    const sinks = [
      { kind: 'conversions_api', url: 'https://user:hunter2@api.example', token_env: 'T' },
      { kind: 'nats', name: 'n', url: 'nats://me:hunter2@127.0.0.1:4222' },
      { kind: 'conversions_api', name: 'f', url: 'ftp://user:hunter2@x', token_env: 'T' },
    ];
    const { issues } = validateConfig({ ...testConfig(), delivery: { sinks } });
    const text = issues.map((i) => `${i.path.join('.')}: ${i.problem}`);
    expect(text).toContain(
      'delivery.sinks.0.url: must not hold a user name or password: put the upstream token in token_env or token_file; received https://***@api.example/',
    );
    expect(
      text.some((t) => t.startsWith('delivery.sinks.1.url: must not hold a user name or password')),
    ).toBe(true);
    expect(text.join('\n')).not.toContain('hunter2');
  });

  test('a URL is shown without its user info, and so is a mistyped one that holds some', () => {
    expect(withoutCredentials('https://user:hunter2@api.example/v5')).toBe('https://***@api.example/v5');
    expect(withoutCredentials('https//user:hunter2@api.example')).toBe('https//***@api.example');
    expect(withoutCredentials('https://api.example/v5')).toBe('https://api.example/v5');
    expect(hasCredentials('nats://me:pw@127.0.0.1:4222')).toBe(true);
    expect(hasCredentials('not a url')).toBe(false);
  });
});
