import type { DeletionKeyField } from '@org/events-types';
import type { DeletionStatus } from './outbox.js';

/**
 * The users a conversion deletion request names, by the user_data field their values are matched against
 * (C91, C124: the fields come from the spec, `DELETION_KEYS`): SHA-256 hex digests for a hashed field
 * (`em`), values as sent otherwise (`click_id`). A field left out matches nothing.
 */
export type DeletionTargets = { readonly [F in DeletionKeyField]?: readonly string[] };

/**
 * What a deletion removed: stored events (and with them their dedup sightings and their outbox entries,
 * pending or settled, so a deleted event is never delivered and never holds its account's delivery), and
 * request-log bodies.
 */
export interface DeletionCounts {
  events: number;
  outboxEntries: number;
  requestBodies: number;
}

/**
 * A conversion deletion request as the store keeps it (C91, C121): what it did and when, never its targets
 * (C127: those of a request passed on to an upstream are kept in its outbox entry until the upstream took
 * it). Written in the transaction of its deletion.
 */
export interface DeletionRequestRow {
  /** Digits only, at most 18, never given twice (C121). */
  requestId: string;
  adAccountId: string;
  /**
   * SUBMITTED when processed here (C91). Passed on to an upstream (C127): PENDING until the upstream
   * answered, then the upstream's status; CANCELLED while the upstream refused it for good (its entry dead).
   */
  status: DeletionStatus;
  /** Milliseconds since the epoch, as every store time. */
  createdAt: number;
  /** Null until processed: at creation here (C91); passed on, when the upstream says it processed it. */
  processedAt: number | null;
  removed: DeletionCounts;
}
