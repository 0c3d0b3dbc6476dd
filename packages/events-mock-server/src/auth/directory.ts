import type {
  AdAccountRecord,
  AppRecord,
  DirectoryData,
  TokenRecord,
} from '../store/interface/directory-data.js';
import { digestKey, hashToken, sameDigest } from './token-hash.js';

/** Who is calling, once the bearer token is known. */
export type Principal =
  | { kind: 'conversion'; tokenId: string; adAccountId: string }
  | { kind: 'oauth'; tokenId: string; userId: string; app: AppRecord; scopes: ReadonlySet<string> }
  | { kind: 'admin'; tokenId: string };

export type AuthFailure = 'auth_missing' | 'auth_malformed' | 'token_unknown';

/**
 * The in-memory view of accounts, apps, users and tokens, built from the store at start. The config is the
 * only writer of these tables, so a snapshot read once is exact; it keeps the hot path free of queries.
 */
export class Directory {
  readonly accounts: ReadonlyMap<string, AdAccountRecord>;
  readonly apps: ReadonlyMap<string, AppRecord>;
  /** Ids of the conversion and OAuth tokens (never the tokens): what a fault may name (C65). */
  readonly tokenIds: ReadonlySet<string>;
  readonly #tokens = new Map<string, TokenRecord[]>();
  /** user id -> ad account ids it owns or has a role on. */
  readonly #reach = new Map<string, Set<string>>();

  constructor(data: DirectoryData) {
    this.accounts = new Map(data.accounts.map((a) => [a.id, a]));
    this.apps = new Map(data.apps.map((a) => [a.id, a]));
    this.tokenIds = new Set(data.tokens.filter((t) => t.kind !== 'admin').map((t) => t.id));
    for (const t of data.tokens) {
      const k = digestKey(t.sha256);
      const list = this.#tokens.get(k);
      if (list) list.push(t);
      else this.#tokens.set(k, [t]);
    }
    const reach = (user: string, account: string) => {
      const s = this.#reach.get(user) ?? new Set<string>();
      this.#reach.set(user, s);
      s.add(account);
    };
    for (const a of data.accounts) if (a.ownerUserId) reach(a.ownerUserId, a.id);
    for (const u of data.users) for (const r of u.roles) reach(u.id, r.adAccountId);
  }

  /**
   * Resolves an Authorization header to a principal (C8). Never logs or keeps the token; the digest is
   * compared in constant time.
   */
  authenticate(header: string | undefined): Principal | AuthFailure {
    if (header === undefined || header === '') return 'auth_missing';
    const m = /^Bearer +([^\s]+) *$/i.exec(header);
    if (!m) return 'auth_malformed';
    const digest = hashToken(m[1] as string);
    const candidates = this.#tokens.get(digestKey(digest));
    const t = candidates?.find((c) => sameDigest(c.sha256, digest));
    if (!t || t.revoked) return 'token_unknown';
    if (t.kind === 'admin') return { kind: 'admin', tokenId: t.id };
    if (t.kind === 'conversion')
      return { kind: 'conversion', tokenId: t.id, adAccountId: t.adAccountId as string };
    const app = this.apps.get(t.appId as string);
    if (!app) return 'token_unknown';
    return { kind: 'oauth', tokenId: t.id, userId: t.userId as string, app, scopes: new Set(t.scopes) };
  }

  /** Whether a user owns or has a role on an ad account (C8). */
  userReaches(userId: string, adAccountId: string): boolean {
    return this.#reach.get(userId)?.has(adAccountId) ?? false;
  }
}
