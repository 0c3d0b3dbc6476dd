/**
 * The delivery outbox of C100: entries written in the batch transaction of the events they name, claimed in
 * batches by deliverers under a lease, settled as delivered, failed (retried later) or dead. The outbox part
 * of every Store (store.ts): the deliverer and the delivery metrics take only this.
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
   * Goes on with an owner's claim of one account (C128): its next pending entries after `afterId` (the last
   * it holds), at most `limit`, leased to it like a claim's, and the lease of everything it holds of the
   * account renewed to `now + leaseMs`. When it holds none of the account's entries any more (all settled),
   * this is a claim of that account alone, from its oldest entry still to deliver, if it is due and free.
   * Null when another owner holds the account (or it is not due): the caller sends nothing more of it.
   */
  extendClaim(claim: OutboxExtension): Promise<OutboxBatch[] | null>;
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
  /**
   * How many conversion deletions (C91) this store object has committed since it was opened, counted before
   * each is answered. A deliverer of the same process reads it before a claim and again before sending what
   * it claimed: a batch claimed before a deletion it has not seen is not sent (C132).
   */
  deletionsCommitted(): number;
}

export interface OutboxRoute {
  sink: string;
  /** null: every ad account. */
  adAccounts: readonly string[] | null;
  /**
   * The sink takes conversion deletion requests (C127: a Conversions API sink; a NATS sink does not): a
   * request accepted for an account it covers writes an entry of its own, in the deletion's transaction.
   */
  deletions?: boolean;
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

export interface OutboxExtension {
  sink: string;
  owner: string;
  adAccountId: string;
  /** The last entry the owner was given of the account. */
  afterId: number;
  now: number;
  leaseMs: number;
  batchSize: number;
  /** Most entries given. */
  limit: number;
}

/**
 * The entries of one ad account, oldest first, with the events as stored; or (`deletion` set) one entry of a
 * conversion deletion request (C127), always a batch of its own, whose entry names no event (its eventName,
 * eventId and event are empty).
 */
export interface OutboxBatch {
  sink: string;
  adAccountId: string;
  entries: OutboxEntry[];
  deletion?: OutboxDeletion;
}

/** A conversion deletion request to pass on (C127). */
export interface OutboxDeletion {
  /** This service's id of the request (C121). */
  requestId: string;
  /** The body to send: Pinterest's `ConversionDeletionRequestCreate`, as JSON text. */
  body: string;
}

/** Pinterest's statuses of a conversion deletion request (spec: ConversionDeletionRequestStatus). */
export type DeletionStatus = 'PENDING' | 'SUBMITTED' | 'CANCELLED';

/** What the upstream answered to a deletion request passed on (C127), kept on the request. */
export interface DeletionAnswer {
  /** The outbox entry of the request. */
  entryId: number;
  status: DeletionStatus;
  /** The upstream's processed day (ms of its start, UTC), or null. */
  processedAt: number | null;
  upstreamRequestId: string | null;
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
      /** The upstream's answers to the deletion requests among the entries (C127). */
      deletions?: readonly DeletionAnswer[];
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
