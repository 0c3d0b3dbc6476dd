// What the store conformance suites share (issue 36: one suite per part of the Store, events-, request-log- and
// directory-conformance): two accounts, a directory, events and batches of them, request log entries.
import { createHash } from 'node:crypto';
import type { DirectoryData } from '../../src/store/interface/directory-data.js';
import type { BatchWrite, EventToStore } from '../../src/store/interface/events.js';
import type { RequestLogRetention, RequestLogWrite } from '../../src/store/interface/request-log.js';

export const ACCOUNT = '549755885175';
export const OTHER = '549755885176';
export const T0 = Date.UTC(2026, 2, 2, 12, 0, 0);
export const WINDOW = 48 * 3600 * 1000;
const sha = (s: string) => createHash('sha256').update(s).digest();

export const directory: DirectoryData = {
  accounts: [
    { id: ACCOUNT, name: 'Shop', currency: 'USD', ownerUserId: 'u1' },
    { id: OTHER, name: 'Other', currency: 'EUR', ownerUserId: null },
  ],
  apps: [{ id: 'app1', name: 'App', tier: 'standard' }],
  users: [{ id: 'u1', name: 'Ann', roles: [{ adAccountId: OTHER, role: 'analyst' }] }],
  tokens: [
    {
      id: 'conv',
      kind: 'conversion',
      sha256: sha('conversion-token'),
      adAccountId: ACCOUNT,
      userId: null,
      appId: null,
      scopes: [],
      revoked: false,
    },
    {
      id: 'oauth',
      kind: 'oauth',
      sha256: sha('oauth-token'),
      adAccountId: null,
      userId: 'u1',
      appId: 'app1',
      scopes: ['ads:read', 'ads:write'],
      revoked: true,
    },
  ],
};

export function ev(index: number, eventId: string, eventName = 'checkout'): EventToStore {
  return {
    index,
    eventName,
    eventId,
    eventTime: 1_772_452_800 + index,
    usage: ['reporting', 'audiences'],
    json: JSON.stringify({ event_name: eventName, event_id: eventId, n: index }),
  };
}

export function batch(events: EventToStore[], receivedAt = T0, over: Partial<BatchWrite> = {}): BatchWrite {
  return {
    adAccountId: ACCOUNT,
    requestId: `req-${receivedAt}`,
    receivedAt,
    dedupSince: receivedAt - WINDOW,
    events,
    failures: [],
    ...over,
  };
}

export const dupObject = (m: Map<number, unknown>) => Object.fromEntries(m);

/** A request log entry received `i` seconds after T0 (C60). */
export function logged(i: number, over: Partial<RequestLogWrite> = {}): RequestLogWrite {
  return {
    requestId: `r${i}`,
    clientRequestId: null,
    receivedAt: T0 + i * 1000,
    adAccountId: ACCOUNT,
    tokenId: 'conv',
    test: false,
    status: 200,
    durationMs: 1.5,
    events: 2,
    processed: 1,
    failed: 1,
    warned: 0,
    eventNames: ['checkout', 'lead'],
    error: null,
    body: '{"data":[{"event_name":"checkout"},{"event_name":"lead"}]}',
    bodyTruncated: false,
    items: [
      {
        index: 0,
        status: 'processed',
        errorMessage: null,
        warningMessage: null,
        fields: [],
        duplicateOf: null,
      },
      {
        index: 1,
        status: 'failed',
        errorMessage: 'event_time is missing',
        warningMessage: null,
        fields: ['event_time'],
        duplicateOf: null,
      },
    ],
    timeline: null,
    ...over,
  };
}

export const KEEP: RequestLogRetention = {
  maxEntries: 100,
  maxBytes: 1_000_000,
  maxAgeMs: 3600_000,
  now: T0,
  timelineSince: 0,
};
