import type { checkAdminRequestsListQuery } from '../generated/request-checks.gen.js';
import type { ServerContext } from '../http/context.js';
import type { RequestLogFilter, RequestLogSummary } from '../store/interface/request-log.js';

/** RequestSummary of the contract (C60), snake_case like the rest of the API. */
export function summaryJson(s: RequestLogSummary) {
  return {
    request_id: s.requestId,
    client_request_id: s.clientRequestId,
    received_at: s.receivedAt,
    ad_account_id: s.adAccountId,
    token_id: s.tokenId,
    test: s.test,
    status: s.status,
    duration_ms: s.durationMs,
    events: s.events,
    processed: s.processed,
    failed: s.failed,
    warned: s.warned,
    event_names: s.eventNames,
    error: s.error,
  };
}

type RequestsQuery = Omit<ReturnType<typeof checkAdminRequestsListQuery>, 'limit' | 'cursor'>;

/**
 * The store filter of the request-log query of the list and the export (C61): seconds become ms, and
 * entries past the retention age are left out even before they are pruned.
 */
export function requestFilter(ctx: ServerContext, q: RequestsQuery, limit: number): RequestLogFilter {
  const since = Math.max(q.since !== undefined ? q.since * 1000 : 0, ctx.requestLog.notBefore());
  return {
    ...(q.ad_account_id !== undefined ? { adAccountId: q.ad_account_id } : {}),
    ...(q.client_request_id !== undefined ? { clientRequestId: q.client_request_id } : {}),
    ...(q.status !== undefined ? { status: q.status } : {}),
    ...(q.outcome !== undefined ? { outcome: q.outcome } : {}),
    ...(q.event_name !== undefined ? { eventName: q.event_name } : {}),
    ...(q.test !== undefined ? { test: q.test === 'true' } : {}),
    since,
    ...(q.until !== undefined ? { until: q.until * 1000 } : {}),
    limit,
  };
}
