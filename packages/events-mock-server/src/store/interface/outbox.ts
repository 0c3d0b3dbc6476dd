/**
 * The delivery outbox of C100: entries written in the batch transaction of the events they name, claimed in
 * batches by deliverers under a lease, settled as delivered, failed (retried later) or dead. A store that
 * keeps one implements this beside Store; every method is async for the same reason as Store's.
 *
 * Times are milliseconds since the epoch.
 */
export interface Outbox {
  /**
   * Which sinks cover which ad accounts (null: all). Until it is called, and while it names no sink, a
   * stored batch writes no outbox entry at all (the hot path stays as it was).
   */
  routeOutbox(routes: readonly OutboxRoute[]): Promise<void>;
  /**
   * Leases the oldest pending entries of up to `maxAccounts` ad accounts of a sink to `owner` until
   * `now + leaseMs`, at most `batchSize * batchesPerAccount` of each account, answered as batches of at most
   * `batchSize` (oldest first). Only accounts whose oldest pending entry is due (its retry time reached) and
   * not leased to anyone are taken, the account with the oldest such entry first. So two deliverers never
   * hold the same entry, and an account's entries go out in order (C100). An entry whose event is gone (a
   * deletion of an earlier version that left it) is removed here, never answered and never in the way.
   */
  claimOutbox(claim: OutboxClaim): Promise<OutboxBatch[]>;
  /**
   * Settles entries leased to `owner`, each outcome of one account, several in one call (a claim's batches,
   * C114); entries whose lease passed to another owner are left alone (on PostgreSQL, which leases whole
   * accounts: every entry of an account another owner has claimed since). Times are whole milliseconds (a
   * fraction is rounded up).
   */
  settleOutbox(owner: string, outcome: OutboxOutcome | readonly OutboxOutcome[]): Promise<void>;
  /**
   * Puts dead entries back to pending (of one sink or all), in their place in their account's order; due
   * now, or once the leases of their account's entries out with a deliverer have run out. Answers how many.
   */
  requeueDeadOutbox(now: number, sink?: string): Promise<number>;
  /** Depth, dead count and the oldest pending entry per sink. */
  outboxStats(): Promise<OutboxStats[]>;
  /** Deletes delivered entries settled before `deliveredBefore`; answers how many. */
  pruneOutbox(deliveredBefore: number): Promise<number>;
  /** The entries of the events one request stored, for the inspector. */
  outboxOfRequest(requestId: string): Promise<OutboxEntryStatus[]>;
}

export interface OutboxRoute {
  sink: string;
  /** null: every ad account. */
  adAccounts: readonly string[] | null;
}

export interface OutboxClaim {
  sink: string;
  owner: string;
  now: number;
  leaseMs: number;
  batchSize: number;
  /** Batches of one account in one claim, delivered one after the other. */
  batchesPerAccount: number;
  /** Accounts in one claim, delivered side by side. */
  maxAccounts: number;
}

/** The entries of one ad account, oldest first, with the events as stored. */
export interface OutboxBatch {
  sink: string;
  adAccountId: string;
  entries: OutboxEntry[];
}

export interface OutboxEntry {
  /** The entry's own sequence number. */
  id: number;
  eventName: string;
  eventId: string;
  /** The event as accepted (JSON text). */
  event: string;
  /** Attempts before this one. */
  attempts: number;
}

/** What the upstream said of one delivered event (C100): kept with the entry. */
export interface UpstreamResult {
  status: 'processed' | 'failed';
  message: string | null;
  warning: string | null;
}

/** The entries settled are of one account (the stores find them by it and their ids). */
export type OutboxOutcome =
  /** Given back unsent (the deliverer stops): claimable again at once, no attempt counted. */
  | { kind: 'released'; adAccountId: string; ids: readonly number[] }
  | {
      kind: 'delivered';
      adAccountId: string;
      ids: readonly number[];
      now: number;
      results?: readonly (UpstreamResult | null)[];
    }
  | {
      kind: 'failed';
      adAccountId: string;
      ids: readonly number[];
      now: number;
      error: string;
      /** When to try again; entries that reach `maxAttempts` become dead instead. */
      retryAt: number;
      maxAttempts: number;
    };

export type OutboxState = 'pending' | 'delivered' | 'dead';

export interface OutboxStats {
  sink: string;
  pending: number;
  dead: number;
  /** Creation time of the oldest pending entry, or null. */
  oldestPendingAt: number | null;
}

export interface OutboxEntryStatus {
  sink: string;
  eventName: string;
  eventId: string;
  state: OutboxState;
  attempts: number;
  lastError: string | null;
  nextAttemptAt: number | null;
  deliveredAt: number | null;
  result: UpstreamResult | null;
}

/** Whether a store keeps an outbox (every store of this package does: SQLite's and PostgreSQL's, C100). */
export function hasOutbox<T extends object>(store: T): store is T & Outbox {
  return typeof (store as Partial<Outbox>).claimOutbox === 'function';
}
