// A batch of `lead` events as the outbox suites store it: each event's JSON is its id (and, where a deletion
// must match it, its user data).
import type { BatchWrite } from '../../src/store/interface/events.js';

export function leadBatch(
  adAccountId: string,
  requestId: string,
  ids: readonly string[],
  o: { receivedAt?: number; dedupSince?: number; userData?: object } = {},
): BatchWrite {
  return {
    adAccountId,
    requestId,
    receivedAt: o.receivedAt ?? 1000,
    dedupSince: o.dedupSince ?? 0,
    events: ids.map((id, index) => ({
      index,
      eventName: 'lead',
      eventId: id,
      eventTime: 1,
      usage: [],
      json: JSON.stringify({ event_id: id, user_data: o.userData }),
    })),
    failures: [],
  };
}
