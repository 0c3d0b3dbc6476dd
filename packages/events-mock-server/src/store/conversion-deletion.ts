// C91: what a conversion deletion request removes, decided the same way by every store: the stored events of
// the account that carry one of the e-mail hashes or click ids, and every kept request-log body of the
// account that holds one of them.
import { bodyText } from './request-log-rows.js';

/** The users a conversion deletion request names: SHA-256 hex digests of e-mails, and click ids (EPIKs). */
export interface DeletionTargets {
  emailHashes: readonly string[];
  clickIds: readonly string[];
}

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

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Whether a stored event (its JSON text as accepted) belongs to a user of the request. */
export function eventMatches(eventJson: string, t: DeletionTargets): boolean {
  const ud = (JSON.parse(eventJson) as Record<string, unknown>).user_data;
  if (!isObject(ud)) return false;
  if (typeof ud.click_id === 'string' && t.clickIds.includes(ud.click_id)) return true;
  return Array.isArray(ud.em) && ud.em.some((h) => typeof h === 'string' && t.emailHashes.includes(h));
}

/**
 * Whether a kept request body (plain or compressed) holds one of the targets anywhere: in a stored event, a
 * failed one or a test request. A digest is 64 hex characters, so a substring test cannot match by chance;
 * a click id is matched as the JSON string it is sent as.
 */
export function bodyMatches(body: string | Uint8Array, t: DeletionTargets): boolean {
  const text = bodyText(body);
  return (
    t.emailHashes.some((h) => text.includes(h) || text.includes(h.toUpperCase())) ||
    t.clickIds.some((c) => text.includes(JSON.stringify(c)))
  );
}
