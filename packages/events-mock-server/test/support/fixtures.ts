import { createHash } from 'node:crypto';

/** Tokens of the test config, in clear (the server only ever sees their digests). */
export const T = {
  admin: 'admin-token-0123456789abcdef',
  convA: 'conv-token-A-0123456789abcdef',
  convB: 'conv-token-B-0123456789abcdef',
  oauthStd: 'oauth-alice-standard-0123456789',
  oauthTrial: 'oauth-alice-trial-0123456789ab',
  oauthBob: 'oauth-bob-standard-0123456789a',
  oauthReadOnly: 'oauth-alice-readonly-012345678',
  revoked: 'oauth-revoked-0123456789abcdef',
} as const;

export const A = '111111111111';
export const B = '222222222222';
/** An ad account no token reaches. */
export const C = '333333333333';

/** The test config (C8): two accounts with conversion tokens, users with owner/role, both tiers. */
export function testConfig(): Record<string, unknown> {
  return {
    admin_token: T.admin,
    ad_accounts: [
      { id: A, name: 'Shop A', currency: 'USD', owner: 'alice' },
      { id: B, name: 'Shop B', currency: 'EUR' },
      { id: C, name: 'Shop C', currency: 'GBP' },
    ],
    apps: [
      { id: '9001', name: 'Standard app', tier: 'standard' },
      { id: '9002', name: 'Trial app', tier: 'trial' },
    ],
    users: [
      { id: 'alice', name: 'Alice' },
      { id: 'bob', name: 'Bob', roles: [{ ad_account: B, role: 'analyst' }] },
    ],
    tokens: [
      { id: 'conv-a', kind: 'conversion', token: T.convA, ad_account: A },
      { id: 'conv-b', kind: 'conversion', token: T.convB, ad_account: B },
      {
        id: 'alice-std',
        kind: 'oauth',
        token: T.oauthStd,
        user: 'alice',
        app: '9001',
        scopes: ['ads:read', 'ads:write'],
      },
      {
        id: 'alice-trial',
        kind: 'oauth',
        token: T.oauthTrial,
        user: 'alice',
        app: '9002',
        scopes: ['ads:write'],
      },
      { id: 'bob-std', kind: 'oauth', token: T.oauthBob, user: 'bob', app: '9001', scopes: ['ads:write'] },
      {
        id: 'alice-ro',
        kind: 'oauth',
        token: T.oauthReadOnly,
        user: 'alice',
        app: '9001',
        scopes: ['ads:read'],
      },
      {
        id: 'revoked',
        kind: 'oauth',
        token: T.revoked,
        user: 'alice',
        app: '9001',
        scopes: ['ads:write'],
        revoked: true,
      },
    ],
  };
}

export const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

const UA =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15';

/** A valid event at `eventTime` (Unix seconds), with every recommended field, so it draws no warning. */
export function event(eventTime: number, over: Record<string, unknown> = {}): Record<string, unknown> {
  const id = `order-${Math.random().toString(36).slice(2)}`;
  return {
    event_name: 'checkout',
    action_source: 'web',
    event_time: eventTime,
    event_id: id,
    event_source_url: 'https://shop.example.com/checkout',
    partner_name: 'direct',
    user_data: {
      em: [sha256('jane@example.com')],
      external_id: [sha256('customer-1')],
      click_id: 'dj0yJnU9b2JDcFFHekV4SHJNcmVrbFBkUEdqakh0akdUT1VjVVUm',
      client_ip_address: '203.0.113.9',
      client_user_agent: UA,
    },
    custom_data: {
      currency: 'USD',
      value: '19.99',
      order_id: id,
      num_items: 1,
      content_ids: ['sku-1'],
      contents: [{ id: 'sku-1', item_price: '19.99', quantity: 1 }],
    },
    ...over,
  };
}
