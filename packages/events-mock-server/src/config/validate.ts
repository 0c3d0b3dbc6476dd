import { ACCESS_TIERS, CURRENCY_CODES, SECURITY_SCHEMES } from '@org/events-types';
import { hashToken } from '../auth/token-hash.js';
import { ROUTES } from '../generated/routes.gen.js';
import type { DirectoryData, TokenRecord } from '../store/directory-data.js';
import type { SynchronousLevel } from '../store/sqlite-store.js';
import type { ConfigIssue } from './config-error.js';

/** The validated config (C8 and the server options of issue point 4). */
export interface ServerConfig {
  directory: DirectoryData;
  server: { host?: string; port?: number };
  storage: { path?: string; synchronous?: SynchronousLevel };
  logLevel?: string;
}

type Path = (string | number)[];

const AD_ACCOUNT_ID = new RegExp(ROUTES['events/create'].pathParams.ad_account_id.pattern);
const SCOPES = Object.keys(SECURITY_SCHEMES.find((s) => s.name === 'oauth2')?.scopes ?? {});
const CURRENCIES = new Set<string>(CURRENCY_CODES);
const SYNC_LEVELS = ['FULL', 'EXTRA', 'NORMAL'] as const;
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const SHA256_HEX = /^[0-9a-f]{64}$/;
/** A plaintext token: no whitespace (it travels in a header) and long enough not to be guessed. */
const TOKEN = /^[\x21-\x7e]{16,512}$/;

/**
 * Validates a parsed config (YAML or an object given to startServer) and resolves it. Collects every
 * problem with its path instead of stopping at the first, so one run shows everything to fix.
 */
export function validateConfig(raw: unknown): { config?: ServerConfig; issues: ConfigIssue[] } {
  const issues: ConfigIssue[] = [];
  const bad = (path: Path, problem: string) => issues.push({ path, problem });

  const obj = (v: unknown, path: Path): Record<string, unknown> | undefined => {
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
    bad(path, `must be a mapping; received ${describe(v)}`);
    return undefined;
  };
  const keys = (o: Record<string, unknown>, path: Path, allowed: readonly string[]) => {
    for (const k of Object.keys(o))
      if (!allowed.includes(k)) bad([...path, k], `is not a config key here; allowed: ${allowed.join(', ')}`);
  };
  const str = (o: Record<string, unknown>, k: string, path: Path, required = true): string | undefined => {
    const v = o[k];
    if (v === undefined || v === null) {
      if (required) bad([...path, k], 'is missing');
      return undefined;
    }
    // YAML reads 549755885175 as a number; ids are strings, and digits are what was meant.
    if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return String(v);
    if (typeof v !== 'string' || v === '') {
      bad([...path, k], `must be a non-empty string; received ${describe(v)}`);
      return undefined;
    }
    return v;
  };
  const list = (o: Record<string, unknown>, k: string, path: Path, required: boolean): unknown[] => {
    const v = o[k];
    if (v === undefined || v === null) {
      if (required) bad([...path, k], 'is missing; give a list');
      return [];
    }
    if (!Array.isArray(v)) {
      bad([...path, k], `must be a list; received ${describe(v)}`);
      return [];
    }
    return v;
  };
  const unique = (seen: Set<string>, id: string | undefined, path: Path, what: string) => {
    if (id === undefined) return;
    if (seen.has(id)) bad(path, `duplicate ${what} id ${JSON.stringify(id)}`);
    seen.add(id);
  };
  const secret = (
    o: Record<string, unknown>,
    path: Path,
    plainKey: string,
    hashKey: string,
  ): Buffer | undefined => {
    const plain = o[plainKey];
    const hash = o[hashKey];
    if (plain !== undefined && hash !== undefined) {
      bad(path, `give ${plainKey} or ${hashKey}, not both`);
      return undefined;
    }
    if (plain !== undefined) {
      if (typeof plain !== 'string' || !TOKEN.test(plain)) {
        // Never echo the value: it may be a real secret with a typo.
        bad([...path, plainKey], 'must be 16 to 512 printable characters without spaces');
        return undefined;
      }
      return hashToken(plain);
    }
    if (hash !== undefined) {
      if (typeof hash !== 'string' || !SHA256_HEX.test(hash)) {
        bad([...path, hashKey], 'must be the SHA-256 of the token as 64 lower-case hex characters');
        return undefined;
      }
      return Buffer.from(hash, 'hex');
    }
    bad(path, `needs ${plainKey} (the token) or ${hashKey} (its SHA-256, hex)`);
    return undefined;
  };

  const root = obj(raw, []);
  if (!root) return { issues };
  keys(
    root,
    [],
    [
      'admin_token',
      'admin_token_sha256',
      'ad_accounts',
      'apps',
      'users',
      'tokens',
      'server',
      'storage',
      'log_level',
    ],
  );

  const directory: DirectoryData = { accounts: [], apps: [], users: [], tokens: [] };

  const accountIds = new Set<string>();
  list(root, 'ad_accounts', [], true).forEach((v, i) => {
    const path = ['ad_accounts', i];
    const a = obj(v, path);
    if (!a) return;
    keys(a, path, ['id', 'name', 'currency', 'owner']);
    const id = str(a, 'id', path);
    if (id !== undefined && !AD_ACCOUNT_ID.test(id))
      bad([...path, 'id'], `must match ${AD_ACCOUNT_ID.source} (C1); received ${JSON.stringify(id)}`);
    unique(accountIds, id, [...path, 'id'], 'ad account');
    const currency = str(a, 'currency', path, false) ?? 'USD';
    if (!CURRENCIES.has(currency))
      bad(
        [...path, 'currency'],
        `must be an ISO-4217 code such as USD; received ${JSON.stringify(currency)}`,
      );
    const owner = str(a, 'owner', path, false) ?? null;
    if (id !== undefined)
      directory.accounts.push({ id, name: str(a, 'name', path, false) ?? id, currency, ownerUserId: owner });
  });
  if (directory.accounts.length === 0 && !issues.some((i) => i.path[0] === 'ad_accounts'))
    bad(['ad_accounts'], 'must hold at least one ad account');

  const appIds = new Set<string>();
  list(root, 'apps', [], false).forEach((v, i) => {
    const path = ['apps', i];
    const a = obj(v, path);
    if (!a) return;
    keys(a, path, ['id', 'name', 'tier']);
    const id = str(a, 'id', path);
    unique(appIds, id, [...path, 'id'], 'app');
    const tier = str(a, 'tier', path, false) ?? 'standard';
    if (!(ACCESS_TIERS as readonly string[]).includes(tier))
      bad([...path, 'tier'], `must be one of ${ACCESS_TIERS.join(', ')}; received ${JSON.stringify(tier)}`);
    if (id !== undefined)
      directory.apps.push({
        id,
        name: str(a, 'name', path, false) ?? id,
        tier: tier as 'trial' | 'standard',
      });
  });

  const userIds = new Set<string>();
  list(root, 'users', [], false).forEach((v, i) => {
    const path = ['users', i];
    const u = obj(v, path);
    if (!u) return;
    keys(u, path, ['id', 'name', 'roles']);
    const id = str(u, 'id', path);
    unique(userIds, id, [...path, 'id'], 'user');
    const roles: { adAccountId: string; role: string }[] = [];
    list(u, 'roles', path, false).forEach((rv, j) => {
      const rp = [...path, 'roles', j];
      const r = obj(rv, rp);
      if (!r) return;
      keys(r, rp, ['ad_account', 'role']);
      const account = str(r, 'ad_account', rp);
      if (account !== undefined && !accountIds.has(account))
        bad([...rp, 'ad_account'], `names no ad account of ad_accounts: ${JSON.stringify(account)}`);
      if (account !== undefined)
        roles.push({ adAccountId: account, role: str(r, 'role', rp, false) ?? 'owner' });
    });
    if (id !== undefined) directory.users.push({ id, name: str(u, 'name', path, false) ?? id, roles });
  });
  directory.accounts.forEach((a, i) => {
    if (a.ownerUserId !== null && !userIds.has(a.ownerUserId))
      bad(['ad_accounts', i, 'owner'], `names no user of users: ${JSON.stringify(a.ownerUserId)}`);
  });

  const tokenIds = new Set<string>();
  const digests = new Set<string>();
  const addToken = (t: TokenRecord, path: Path) => {
    const hex = t.sha256.toString('hex');
    if (digests.has(hex)) bad(path, 'is the same token as another entry; every token must be distinct');
    digests.add(hex);
    directory.tokens.push(t);
  };
  list(root, 'tokens', [], false).forEach((v, i) => {
    const path = ['tokens', i];
    const t = obj(v, path);
    if (!t) return;
    const kind = str(t, 'kind', path);
    const common = ['id', 'kind', 'token', 'sha256', 'revoked'];
    const id = str(t, 'id', path, false) ?? `tokens[${i}]`;
    unique(tokenIds, id, [...path, 'id'], 'token');
    const revoked = t.revoked ?? false;
    if (typeof revoked !== 'boolean')
      bad([...path, 'revoked'], `must be true or false; received ${describe(revoked)}`);
    if (kind === 'conversion') {
      keys(t, path, [...common, 'ad_account']);
      const account = str(t, 'ad_account', path);
      if (account !== undefined && !accountIds.has(account))
        bad([...path, 'ad_account'], `names no ad account of ad_accounts: ${JSON.stringify(account)}`);
      const sha256 = secret(t, path, 'token', 'sha256');
      if (sha256 && account !== undefined)
        addToken(
          {
            id,
            kind,
            sha256,
            adAccountId: account,
            userId: null,
            appId: null,
            scopes: [],
            revoked: revoked === true,
          },
          path,
        );
    } else if (kind === 'oauth') {
      keys(t, path, [...common, 'user', 'app', 'scopes']);
      const user = str(t, 'user', path);
      if (user !== undefined && !userIds.has(user))
        bad([...path, 'user'], `names no user of users: ${JSON.stringify(user)}`);
      const app = str(t, 'app', path);
      if (app !== undefined && !appIds.has(app))
        bad([...path, 'app'], `names no app of apps: ${JSON.stringify(app)}`);
      const scopes: string[] = [];
      list(t, 'scopes', path, true).forEach((s, j) => {
        if (typeof s === 'string' && SCOPES.includes(s)) scopes.push(s);
        else bad([...path, 'scopes', j], `must be one of ${SCOPES.join(', ')}; received ${describe(s)}`);
      });
      const sha256 = secret(t, path, 'token', 'sha256');
      if (sha256 && user !== undefined && app !== undefined)
        addToken(
          {
            id,
            kind,
            sha256,
            adAccountId: null,
            userId: user,
            appId: app,
            scopes,
            revoked: revoked === true,
          },
          path,
        );
    } else if (kind !== undefined) {
      bad([...path, 'kind'], `must be conversion or oauth; received ${JSON.stringify(kind)}`);
    }
  });

  if (root.admin_token !== undefined || root.admin_token_sha256 !== undefined) {
    const sha256 = secret(root, [], 'admin_token', 'admin_token_sha256');
    if (sha256)
      addToken(
        {
          id: 'admin',
          kind: 'admin',
          sha256,
          adAccountId: null,
          userId: null,
          appId: null,
          scopes: [],
          revoked: false,
        },
        ['admin_token'],
      );
  }

  const server: ServerConfig['server'] = {};
  if (root.server !== undefined) {
    const s = obj(root.server, ['server']);
    if (s) {
      keys(s, ['server'], ['host', 'port']);
      const host = str(s, 'host', ['server'], false);
      if (host !== undefined) server.host = host;
      if (s.port !== undefined) {
        if (typeof s.port === 'number' && Number.isInteger(s.port) && s.port >= 0 && s.port <= 65535)
          server.port = s.port;
        else bad(['server', 'port'], `must be an integer from 0 to 65535; received ${describe(s.port)}`);
      }
    }
  }
  const storage: ServerConfig['storage'] = {};
  if (root.storage !== undefined) {
    const s = obj(root.storage, ['storage']);
    if (s) {
      keys(s, ['storage'], ['path', 'synchronous']);
      const p = str(s, 'path', ['storage'], false);
      if (p !== undefined) storage.path = p;
      const sync = str(s, 'synchronous', ['storage'], false);
      if (sync !== undefined) {
        const up = sync.toUpperCase();
        if ((SYNC_LEVELS as readonly string[]).includes(up)) storage.synchronous = up as SynchronousLevel;
        else
          bad(
            ['storage', 'synchronous'],
            `must be one of ${SYNC_LEVELS.join(', ')}; received ${JSON.stringify(sync)}`,
          );
      }
    }
  }
  const config: ServerConfig = { directory, server, storage };
  const logLevel = str(root, 'log_level', [], false);
  if (logLevel !== undefined) {
    if ((LOG_LEVELS as readonly string[]).includes(logLevel)) config.logLevel = logLevel;
    else bad(['log_level'], `must be one of ${LOG_LEVELS.join(', ')}; received ${JSON.stringify(logLevel)}`);
  }
  return issues.length ? { issues } : { config, issues };
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'a mapping';
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v);
  return `${typeof v} ${String(v)}`;
}
