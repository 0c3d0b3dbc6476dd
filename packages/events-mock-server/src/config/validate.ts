import { type FaultSpec, LIMITS } from '@org/events-types';
import { hashToken } from '../auth/token-hash.js';
import { RequestProblems } from '../core/request-error.js';
import {
  DEFAULT_DELIVERY,
  DEFAULT_STREAM,
  DEFAULT_SUBJECT_PREFIX,
  type DeliveryConfig,
  type SinkConfig,
} from '../delivery/delivery-config.js';
import { checkFault } from '../faults/fault-spec.js';
import type { RequestLogBodies } from '../requestlog/request-log.js';
import type { DirectoryData, TokenRecord } from '../store/interface/directory-data.js';
import type { SynchronousLevel } from '../store/sqlite/sqlite-store.js';
import type { ConfigIssue } from './config-error.js';
import { configSchema, digitsAsString, type RawConfig } from './schema.js';

/** The validated config (C8 and the server options). */
export interface ServerConfig {
  directory: DirectoryData;
  server: {
    host?: string;
    port?: number;
    /** C41/C43, under `server:` as headers_timeout_seconds, body_timeout_seconds, ... */
    headersTimeoutSeconds?: number;
    bodyTimeoutSeconds?: number;
    maxConnections?: number;
    maxBodyBytesInFlight?: number;
    shutdownGraceSeconds?: number;
    /** C71: proxies whose X-Forwarded-* headers are believed. */
    trustedProxies?: string[];
  };
  /** C71, under `admin:` as public_origin, login_window_seconds, login_failures_per_client, ... */
  admin: {
    publicOrigin?: string;
    loginWindowSeconds?: number;
    loginFailuresPerClient?: number;
    loginFailuresOverall?: number;
  };
  storage: { url?: string; path?: string; synchronous?: SynchronousLevel };
  limits: { url?: string; prefix?: string };
  /** C60, under `request_log:` as max_entries, max_age_seconds, max_body_bytes. */
  requestLog: {
    maxEntries?: number;
    maxAgeSeconds?: number;
    maxBodyBytes?: number;
    maxBytes?: number;
    bodies?: RequestLogBodies;
  };
  logLevel?: string;
  /** C100, under `delivery:`: the sinks and the delivery's limits, defaults applied. */
  delivery: DeliveryConfig;
  /** Faults injected from the start (C65), checked as the admin API checks them. */
  faults: FaultSpec[];
  /** C125: the ad accounts with `hash_user_data: true`, whose raw user data is hashed on arrival. */
  hashUserData: string[];
}

type Path = (string | number)[];

/**
 * Validates a parsed config (YAML or an object given to startServer) and resolves it: the schema checks
 * every value (schema.ts), then one pass checks what spans values. Every problem is collected with its
 * path, so one run shows everything to fix.
 */
export function validateConfig(raw: unknown): { config?: ServerConfig; issues: ConfigIssue[] } {
  const parsed = configSchema.safeParse(raw);
  const issues: ConfigIssue[] = [];
  if (!parsed.success)
    for (const i of parsed.error.issues) {
      const path = i.path as Path;
      // One line per unknown key, at the key itself, so the file line points at it.
      if (i.code === 'unrecognized_keys')
        for (const k of i.keys) issues.push({ path: [...path, k], problem: i.message });
      else issues.push({ path, problem: i.message });
    }
  // Runs on the raw input too, so a file with both kinds of problem shows all of them at once.
  issues.push(...crossCheck(raw));
  if (!parsed.success || issues.length) return { issues };
  return { config: resolve(parsed.data), issues };
}

/** Reads a list of mappings of the raw config, skipping what the schema already refuses. */
function rows(o: unknown, key: string): [Record<string, unknown>, number][] {
  const v = (o as Record<string, unknown> | null)?.[key];
  if (!Array.isArray(v)) return [];
  return v.flatMap((r, i) => (r !== null && typeof r === 'object' && !Array.isArray(r) ? [[r, i]] : []));
}
const id = (v: unknown) => {
  const s = digitsAsString(v);
  return typeof s === 'string' ? s : undefined;
};

/** Unique ids, references between sections, one secret per token and distinct tokens. */
function crossCheck(raw: unknown): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const bad = (path: Path, problem: string) => issues.push({ path, problem });
  const ids = (section: string, what: string) => {
    const seen = new Set<string>();
    for (const [r, i] of rows(raw, section)) {
      const v = id(r.id);
      if (v === undefined) continue;
      if (seen.has(v)) bad([section, i, 'id'], `duplicate ${what} id ${JSON.stringify(v)}`);
      seen.add(v);
    }
    return seen;
  };
  const refers = (set: Set<string>, value: unknown, path: Path, what: string) => {
    const v = id(value);
    if (v !== undefined && !set.has(v)) bad(path, `names no ${what}: ${JSON.stringify(v)}`);
  };
  const secret = (o: Record<string, unknown>, path: Path, plain: string, hash: string) => {
    if (o[plain] !== undefined && o[hash] !== undefined) bad(path, `give ${plain} or ${hash}, not both`);
    else if (o[plain] === undefined && o[hash] === undefined)
      bad(path, `needs ${plain} (the token) or ${hash} (its SHA-256, hex)`);
  };

  const accounts = ids('ad_accounts', 'ad account');
  const apps = ids('apps', 'app');
  const users = ids('users', 'user');
  ids('tokens', 'token');
  if (
    Array.isArray((raw as Record<string, unknown> | null)?.ad_accounts) &&
    rows(raw, 'ad_accounts').length === 0
  )
    bad(['ad_accounts'], 'must hold at least one ad account');
  for (const [a, i] of rows(raw, 'ad_accounts'))
    if (a.owner !== undefined) refers(users, a.owner, ['ad_accounts', i, 'owner'], 'user of users');
  for (const [u, i] of rows(raw, 'users'))
    for (const [r, j] of rows(u, 'roles'))
      refers(accounts, r.ad_account, ['users', i, 'roles', j, 'ad_account'], 'ad account of ad_accounts');
  for (const [t, i] of rows(raw, 'tokens')) {
    const path = ['tokens', i];
    secret(t, path, 'token', 'sha256');
    if (t.kind === 'conversion')
      refers(accounts, t.ad_account, [...path, 'ad_account'], 'ad account of ad_accounts');
    if (t.kind === 'oauth') {
      refers(users, t.user, [...path, 'user'], 'user of users');
      refers(apps, t.app, [...path, 'app'], 'app of apps');
    }
  }
  const root = raw as Record<string, unknown> | null;
  if (
    root &&
    typeof root === 'object' &&
    (root.admin_token !== undefined || root.admin_token_sha256 !== undefined)
  )
    secret(root, [], 'admin_token', 'admin_token_sha256');

  // Distinct tokens: compared by digest, so a token and its own SHA-256 given twice are caught too.
  const digests = new Set<string>();
  const digest = (o: Record<string, unknown>, plain: string, hash: string) =>
    typeof o[plain] === 'string'
      ? hashToken(o[plain]).toString('hex')
      : typeof o[hash] === 'string'
        ? o[hash]
        : undefined;
  const distinct = (d: string | undefined, path: Path) => {
    if (d === undefined) return;
    if (digests.has(d)) bad(path, 'is the same token as another entry; every token must be distinct');
    digests.add(d);
  };
  for (const [t, i] of rows(raw, 'tokens')) distinct(digest(t, 'token', 'sha256'), ['tokens', i]);
  if (root && typeof root === 'object')
    distinct(digest(root, 'admin_token', 'admin_token_sha256'), ['admin_token']);
  issues.push(...checkSinks(raw));
  issues.push(
    ...checkFaults(raw, accounts, new Set(rows(raw, 'tokens').map(([t, i]) => id(t.id) ?? `tokens[${i}]`))),
  );
  return issues;
}

/** The `delivery.sinks` (C100): distinct names, and one place for a Conversions API token. */
function checkSinks(raw: unknown): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const names = new Set<string>();
  for (const [s, i] of rows((raw as Record<string, unknown> | null)?.delivery, 'sinks')) {
    const name = sinkName(s.name, s.kind, i);
    if (names.has(name))
      issues.push({
        path: ['delivery', 'sinks', i, 'name'],
        problem: `duplicate sink name ${JSON.stringify(name)}`,
      });
    names.add(name);
    if (s.kind === 'conversions_api' && (s.token_env === undefined) === (s.token_file === undefined))
      issues.push({
        path: ['delivery', 'sinks', i],
        problem:
          'needs token_env (an environment variable) or token_file (a file) holding the upstream token, one of them',
      });
  }
  return issues;
}

/** A sink without a name is called by its kind and place, so its outbox entries keep their owner. */
const sinkName = (name: unknown, kind: unknown, i: number) =>
  typeof name === 'string' ? name : `${String(kind)}-${i}`;

function resolveDelivery(d: RawConfig['delivery']): DeliveryConfig {
  const sinks = d.sinks.map((s, i): SinkConfig => {
    const common = {
      name: sinkName(s.name, s.kind, i),
      adAccounts: s.ad_accounts ?? null,
      batchSize: s.batch_size ?? LIMITS.batch_max_events.value,
      url: s.url,
    };
    if (s.kind === 'nats')
      return {
        ...common,
        kind: 'nats',
        stream: s.stream ?? DEFAULT_STREAM,
        subjectPrefix: s.subject_prefix ?? DEFAULT_SUBJECT_PREFIX,
        maxAgeSeconds: s.max_age_seconds ?? LIMITS.delivery_stream_max_age_seconds.value,
        maxBytes: s.max_bytes ?? -1,
        duplicateWindowSeconds:
          s.duplicate_window_seconds ?? LIMITS.delivery_stream_duplicate_window_seconds.value,
      };
    return {
      ...common,
      kind: 'conversions_api',
      upstreamAdAccount: s.upstream_ad_account ?? null,
      tokenEnv: s.token_env ?? null,
      tokenFile: s.token_file ?? null,
    };
  });
  return {
    ...DEFAULT_DELIVERY,
    sinks,
    ...Object.fromEntries(
      Object.entries({
        maxAttempts: d.max_attempts,
        retryBaseMs: d.retry_base_ms,
        retryMaxSeconds: d.retry_max_seconds,
        leaseSeconds: d.lease_seconds,
        retentionSeconds: d.retention_seconds,
        timeoutSeconds: d.timeout_seconds,
        concurrency: d.concurrency,
        batchesPerClaim: d.batches_per_claim,
      }).filter(([, v]) => v !== undefined),
    ),
  };
}

/**
 * The `faults:` section (C65): each item by the rules of POST /admin/faults, so the two never disagree;
 * a problem's field path is put under the item's (`faults[1].latency_ms`).
 */
function checkFaults(raw: unknown, accounts: Set<string>, tokens: Set<string>): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const list = (raw as Record<string, unknown> | null)?.faults;
  if (!Array.isArray(list)) return issues;
  const max = LIMITS.faults_max.value;
  if (list.length > max)
    issues.push({ path: ['faults'], problem: `holds ${list.length} faults; at most ${max}` });
  for (const [i, item] of list.entries()) {
    const p = new RequestProblems();
    const o = item as Record<string, unknown> | null;
    // YAML reads an ad account id as a number; ids are strings (as for ad_accounts).
    const value =
      o && typeof o === 'object' && !Array.isArray(o)
        ? { ...o, ad_account_id: digitsAsString(o.ad_account_id) }
        : item;
    if (value && typeof value === 'object' && (value as Record<string, unknown>).ad_account_id === undefined)
      delete (value as Record<string, unknown>).ad_account_id;
    checkFault(value, { accounts, tokens }, p);
    for (const d of p.details)
      issues.push({
        path: d.path === 'body' ? ['faults', i] : ['faults', i, ...d.path.split('.')],
        problem: d.problem,
      });
  }
  return issues;
}

/** The resolved config of a valid file: directory records with token digests, defaults applied. */
function resolve(c: RawConfig): ServerConfig {
  const digestOf = (plain: string | undefined, hash: string | undefined) =>
    plain !== undefined ? hashToken(plain) : Buffer.from(hash as string, 'hex');
  const none = { adAccountId: null, userId: null, appId: null, scopes: [] as string[] };
  const tokens: TokenRecord[] = c.tokens.map((t, i) => {
    const common = {
      ...none,
      id: t.id ?? `tokens[${i}]`,
      sha256: digestOf(t.token, t.sha256),
      revoked: t.revoked,
    };
    return t.kind === 'conversion'
      ? { ...common, kind: t.kind, adAccountId: t.ad_account }
      : { ...common, kind: t.kind, userId: t.user, appId: t.app, scopes: t.scopes };
  });
  if (c.admin_token !== undefined || c.admin_token_sha256 !== undefined)
    tokens.push({
      ...none,
      id: 'admin',
      kind: 'admin',
      sha256: digestOf(c.admin_token, c.admin_token_sha256),
      revoked: false,
    });
  const config: ServerConfig = {
    directory: {
      accounts: c.ad_accounts.map((a) => ({
        id: a.id,
        name: a.name ?? a.id,
        currency: a.currency,
        ownerUserId: a.owner ?? null,
      })),
      apps: c.apps.map((a) => ({ id: a.id, name: a.name ?? a.id, tier: a.tier as 'trial' | 'standard' })),
      users: c.users.map((u) => ({
        id: u.id,
        name: u.name ?? u.id,
        roles: u.roles.map((r) => ({ adAccountId: r.ad_account, role: r.role })),
      })),
      tokens,
    },
    server: {
      host: c.server.host,
      port: c.server.port,
      headersTimeoutSeconds: c.server.headers_timeout_seconds,
      bodyTimeoutSeconds: c.server.body_timeout_seconds,
      maxConnections: c.server.max_connections,
      maxBodyBytesInFlight: c.server.max_body_bytes_in_flight,
      shutdownGraceSeconds: c.server.shutdown_grace_seconds,
      trustedProxies: c.server.trusted_proxies,
    },
    admin: {
      publicOrigin: c.admin.public_origin,
      loginWindowSeconds: c.admin.login_window_seconds,
      loginFailuresPerClient: c.admin.login_failures_per_client,
      loginFailuresOverall: c.admin.login_failures_overall,
    },
    storage: { ...c.storage },
    limits: { ...c.limits },
    faults: c.faults.map((f) => {
      const o = f as Record<string, unknown>;
      return (o.ad_account_id === undefined
        ? o
        : { ...o, ad_account_id: digitsAsString(o.ad_account_id) }) as unknown as FaultSpec;
    }),
    delivery: resolveDelivery(c.delivery),
    hashUserData: c.ad_accounts.filter((a) => a.hash_user_data).map((a) => a.id),
    requestLog: {
      maxEntries: c.request_log.max_entries,
      maxAgeSeconds: c.request_log.max_age_seconds,
      maxBodyBytes: c.request_log.max_body_bytes,
      maxBytes: c.request_log.max_bytes,
      bodies: c.request_log.bodies,
    },
  };
  if (c.log_level !== undefined) config.logLevel = c.log_level;
  return config;
}
