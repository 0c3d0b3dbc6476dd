// C91: what a conversion deletion request removes, decided the same way by every store: the stored events of
// the account that carry one of the targets in the user_data field it is matched against (C124: which fields,
// and whether hashed, is the spec's DELETION_KEYS), and every kept request-log body of the account that holds
// one of them. C121: the request's own record and the rule of its id.
import { DELETION_KEYS } from '@org/events-types';
import type { DeletionCounts, DeletionRequestRow, DeletionTargets } from '../interface/deletions.js';
import { bodyText } from './request-log-rows.js';

// The deletion types belong to the storage interface, whose methods take and give them (interface/); re-exported
// here for the stores that implement them.
export type { DeletionCounts, DeletionRequestRow, DeletionTargets } from '../interface/deletions.js';

/**
 * C121: the least id of a request made at `now` (ms), the time base of `last = max(last + 1, base)`. A
 * thousand ids a millisecond before the counter runs ahead of the clock; below 2^53 until the year 2255.
 */
export const deletionRequestIdBase = (now: number): number => Math.floor(now) * 1000;

/** The columns of a `deletion_requests` row, the same in both stores (C121). */
export const DELETION_REQUEST_COLUMNS =
  'id, ad_account_id, status, created_at, processed_at, events, outbox_entries, request_bodies';

export interface DeletionRequestDbRow {
  id: number;
  ad_account_id: string;
  status: string;
  created_at: number;
  processed_at: number | null;
  events: number;
  outbox_entries: number;
  request_bodies: number;
}

/** A row's values in the order of DELETION_REQUEST_COLUMNS. */
export const deletionRequestValues = (r: DeletionRequestDbRow) =>
  [
    r.id,
    r.ad_account_id,
    r.status,
    r.created_at,
    r.processed_at,
    r.events,
    r.outbox_entries,
    r.request_bodies,
  ] as const;

/**
 * The row of a request made at `at` and processed then (C91), with the id the counter gave. One passed on to
 * an upstream (C127) is PENDING, and not yet processed, until the upstream answered.
 */
export function processedDeletionRequest(
  id: number,
  adAccountId: string,
  at: number,
  removed: DeletionCounts,
  passedOn = false,
): DeletionRequestDbRow {
  return {
    id,
    ad_account_id: adAccountId,
    status: passedOn ? 'PENDING' : 'SUBMITTED',
    created_at: at,
    processed_at: passedOn ? null : at,
    events: removed.events,
    outbox_entries: removed.outboxEntries,
    request_bodies: removed.requestBodies,
  };
}

export function deletionRequestOfRow(r: DeletionRequestDbRow): DeletionRequestRow {
  return {
    requestId: String(r.id),
    adAccountId: r.ad_account_id,
    status: r.status as DeletionRequestRow['status'],
    createdAt: r.created_at,
    processedAt: r.processed_at,
    removed: { events: r.events, outboxEntries: r.outbox_entries, requestBodies: r.request_bodies },
  };
}

/**
 * C127: the body a request is passed on with, Pinterest's `ConversionDeletionRequestCreate`: each list of
 * `deletion_targets` (the spec's DELETION_KEYS) with the values kept for its field. A hashed field's values
 * are the SHA-256 digests (a plain address was hashed on arrival and never kept, C70); lists left empty are
 * left out.
 */
export function deletionBody(t: DeletionTargets): string {
  const targets: Record<string, readonly string[]> = {};
  for (const { target, field } of DELETION_KEYS) {
    const values = t[field] ?? [];
    if (values.length) targets[target] = values;
  }
  return JSON.stringify({ deletion_targets: targets });
}

/**
 * C127: the request id of an outbox entry of a deletion request (the column names the request that stored
 * an event; this one names the deletion request, in a form no events request id has).
 */
export const deletionEntryRequestId = (id: number | string): string => `deletion:${id}`;

const REQUEST_ID = /^[1-9]\d{0,17}$/;
/**
 * Whether a path's request id can name a request of the store: digits in the form the store gives them (no
 * leading zero, at most 18) and exact as a JavaScript number. Anything else names none (404).
 */
export function isDeletionRequestId(id: string): boolean {
  return REQUEST_ID.test(id) && Number.isSafeInteger(Number(id));
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Whether a field's stored value (an array's items, as `em` holds its digests) is one of the targets. */
const holdsOne = (value: unknown, targets: readonly string[]): boolean =>
  Array.isArray(value)
    ? value.some((v) => typeof v === 'string' && targets.includes(v))
    : typeof value === 'string' && targets.includes(value);

/** Whether a stored event (its JSON text as accepted) belongs to a user of the request. */
export function eventMatches(eventJson: string, t: DeletionTargets): boolean {
  const ud = (JSON.parse(eventJson) as Record<string, unknown>).user_data;
  if (!isObject(ud)) return false;
  return DELETION_KEYS.some(({ field }) => holdsOne(ud[field], t[field] ?? []));
}

/**
 * Whether a kept request body (plain or compressed) holds one of the targets anywhere: in a stored event, a
 * failed one or a test request. A digest is 64 hex characters, so a substring test cannot match by chance
 * (in either case: a body keeps what was sent); any other value is matched as the JSON string it is sent as.
 */
export function bodyMatches(body: string | Uint8Array, t: DeletionTargets): boolean {
  const text = bodyText(body);
  return DELETION_KEYS.some(({ field, hashed }) =>
    (t[field] ?? []).some((v) =>
      hashed ? text.includes(v) || text.includes(v.toUpperCase()) : text.includes(JSON.stringify(v)),
    ),
  );
}
