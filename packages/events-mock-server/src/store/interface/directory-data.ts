import type { AccessTier } from '@org/events-types';

/** An advertiser ad account (C8). */
export interface AdAccountRecord {
  id: string;
  name: string;
  /** ISO-4217 code used when an event sends value without currency (C4, seed 2.5). */
  currency: string;
  /** User who owns the account; owners reach it with OAuth tokens (C8). */
  ownerUserId: string | null;
}

/** An app; its access tier selects the rate limits of seed 8 (C8, C9). */
export interface AppRecord {
  id: string;
  name: string;
  tier: AccessTier;
}

/** A user and the ad accounts it has a role on (C8). */
export interface UserRecord {
  id: string;
  name: string;
  roles: { adAccountId: string; role: string }[];
}

/** `admin` is the operator's token of C12; the two others are the token kinds of seed 5. */
export type StoredTokenKind = 'conversion' | 'oauth' | 'admin';

/** A token as stored: a digest, never the token (C8). */
export interface TokenRecord {
  id: string;
  kind: StoredTokenKind;
  sha256: Buffer;
  /** Conversion tokens: the one ad account they reach. */
  adAccountId: string | null;
  /** OAuth tokens: the user and app they were issued to, and their scopes. */
  userId: string | null;
  appId: string | null;
  scopes: string[];
  revoked: boolean;
}

/** Everything the config seeds into the store (C8). */
export interface DirectoryData {
  accounts: AdAccountRecord[];
  apps: AppRecord[];
  users: UserRecord[];
  tokens: TokenRecord[];
}
