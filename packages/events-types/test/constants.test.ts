import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  ACTION_SOURCES,
  CURRENCY_CODES,
  EVENT_STATUSES,
  LIMITS,
  OPERATIONS,
  PROBLEM_CODES,
  RATE_LIMITS,
  REQUEST_ERRORS,
  STANDARD_EVENT_NAME_TABLE,
  STANDARD_EVENT_NAMES,
} from '../src/index.js';

// Runtime constants mirror the spec's data; these pin the values the seed and the decision records fix.
// Lists the spec may grow (an event name, the README's example edit) are compared with the spec itself.
const specEventNames = (
  parse(readFileSync(new URL('../../../spec/data/event-names.yaml', import.meta.url), 'utf8')) as {
    standard: { name: string }[];
  }
).standard.map((e) => e.name);

describe('generated constants', () => {
  it('carry the standard event names of seed 2.2 in full, with the table', () => {
    expect([...STANDARD_EVENT_NAMES].sort()).toEqual([...specEventNames].sort());
    expect(STANDARD_EVENT_NAMES).toContain('custom');
    expect(STANDARD_EVENT_NAME_TABLE.map((e) => e.name)).toEqual([...STANDARD_EVENT_NAMES].sort());
    expect(STANDARD_EVENT_NAME_TABLE.find((e) => e.name === 'app_install')).toEqual({
      name: 'app_install',
      tagName: null,
      purpose: 'First install of the app, or first start of the app on a device',
      usableFor: ['audience_creation', 'conversion_reporting'],
    });
  });

  it('carry the enums of C4 and seed 2.7', () => {
    expect(ACTION_SOURCES).toEqual(['web', 'app_ios', 'app_android', 'offline']);
    expect(EVENT_STATUSES).toEqual(['processed', 'failed']);
  });

  it('carry the limits of C1, C2, C4, C6 and seed 8', () => {
    expect(LIMITS.batch_max_events.value).toBe(1000);
    expect(LIMITS.body_max_bytes.value).toBe(5 * 1024 * 1024);
    expect(LIMITS.event_time_max_age_seconds.value).toBe(7 * 86400);
    expect(LIMITS.event_time_max_future_seconds.value).toBe(300);
    expect(LIMITS.dedup_window_seconds.value).toBe(48 * 3600);
    expect(LIMITS.custom_event_types_max.value).toBe(15);
    expect(LIMITS.custom_event_name_max_length.value).toBe(100);
    expect(LIMITS.messages_max_per_event.value).toBe(10);
  });

  it('carry every rate-limit table of seed 8 and C9', () => {
    expect(RATE_LIMITS.categories).toHaveLength(12);
    const conv = RATE_LIMITS.categories.find((c) => c.name === 'ads_conversions')!;
    expect(conv.trial).toMatchObject({ limit: 1000, window: 86400, per: ['ad_account', 'app'] });
    expect(conv.standard).toMatchObject({ limit: 120000, window: 60, per: ['ad_account', 'app'] });
    expect(RATE_LIMITS.universal.standard).toMatchObject({ limit: 100, window: 1, per: ['user', 'app'] });
    expect(RATE_LIMITS.testRequests).toMatchObject({ limit: 10, window: 1, per: ['app'] });
  });

  it('carry C2 in order and the per-event codes of C4', () => {
    expect(REQUEST_ERRORS.map((e) => [e.status, e.code])).toEqual([
      [413, 4196],
      [415, 4196],
      [401, 2],
      [404, 2],
      [403, 29],
      [429, 8],
      [400, 4196],
      [409, 4196],
      [404, 2],
      [503, 4197],
      // C74: a 503 whose commit outcome is unknown (the batch may have been stored).
      [503, 4198],
      // Transport rows of issue 9 (C41, C42): answered before any row above applies.
      [408, 4196],
      [431, 4196],
      [414, 4196],
      // C109: an unexpected failure, last since no row above applies to it.
      [500, 1],
    ]);
    expect(PROBLEM_CODES.invalid_event_name.template).toBe(
      'Invalid event_name: {name}. Use a supported conversion event_name (for example {examples}).[[ Did you mean {suggestion}?]]',
    );
    expect(PROBLEM_CODES.hash_dropped.severity).toBe('warning');
    expect(CURRENCY_CODES).toContain('USD');
  });

  it('describe the events endpoint of seed 4.1', () => {
    const op = OPERATIONS.find((o) => o.operationId === 'events/create')!;
    expect(op).toMatchObject({
      method: 'post',
      path: '/v5/ad_accounts/{ad_account_id}/events',
      rateLimitCategory: 'ads_conversions',
      testMode: true,
    });
    expect(op.security).toEqual([
      { scheme: 'conversion_token', scopes: [] },
      { scheme: 'oauth2', scopes: ['ads:write'] },
    ]);
  });
});
