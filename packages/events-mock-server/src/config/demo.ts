import { randomBytes } from 'node:crypto';

/** The tokens of a demo config, in clear: printed at start and returned by startServer (C8). */
export interface DemoCredentials {
  adAccountId: string;
  conversionToken: string;
  oauthToken: string;
  adminToken: string;
}

/** Example id of the spec's AdAccountId parameter. */
const DEMO_AD_ACCOUNT = '549755885175';

/**
 * The default config without --config (C8, issue point 4): one ad account, one conversion token, one OAuth
 * token with ads:write (standard tier app), and an admin token. Tokens are random per start, so a demo
 * server exposed by mistake is not open to anyone who read the README.
 */
export function demoConfig(): { raw: Record<string, unknown>; credentials: DemoCredentials } {
  const token = (prefix: string) => `${prefix}_${randomBytes(24).toString('base64url')}`;
  const credentials: DemoCredentials = {
    adAccountId: DEMO_AD_ACCOUNT,
    conversionToken: token('demo_conv'),
    oauthToken: token('demo_oauth'),
    adminToken: token('demo_admin'),
  };
  const raw = {
    admin_token: credentials.adminToken,
    ad_accounts: [{ id: DEMO_AD_ACCOUNT, name: 'Demo shop', currency: 'USD', owner: 'demo-user' }],
    apps: [{ id: '1000001', name: 'Demo app', tier: 'standard' }],
    users: [{ id: 'demo-user', name: 'Demo user' }],
    tokens: [
      {
        id: 'demo-conversion',
        kind: 'conversion',
        token: credentials.conversionToken,
        ad_account: DEMO_AD_ACCOUNT,
      },
      {
        id: 'demo-oauth',
        kind: 'oauth',
        token: credentials.oauthToken,
        user: 'demo-user',
        app: '1000001',
        scopes: ['ads:read', 'ads:write'],
      },
    ],
  };
  return { raw, credentials };
}
