/**
 * @org/events-client: send conversion events correctly (batches within the limits, retries by the
 * rate-limit headers, one result per input event), and call the admin API by operation (C106). Platform fetch only: no Node-only import here, so it
 * runs in Node >= 20, browsers and edge runtimes.
 */
export {
  type AdminAnswer,
  type AdminCallId,
  type AdminClient,
  type AdminClientOptions,
  type AdminInput,
  createAdminClient,
} from './client/admin.js';
export type { RetryOptions } from './client/backoff.js';
export { createClient, type EventsClient } from './client/client.js';
export {
  type ErrorBody,
  type ErrorDetail,
  EventsApiError,
  EventsConnectionError,
  EventsLocalError,
  type SendError,
} from './client/errors.js';
export { SerializedEvent } from './client/serialized.js';
export type { BatchReport, ClientOptions, EventInput, EventOutcome, SendOptions } from './client/types.js';
export * from './generated/admin.gen.js';
export * from './generated/api.gen.js';
