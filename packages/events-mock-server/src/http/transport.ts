import { LIMITS } from '@org/events-types';

/**
 * The connection-level limits of C41 and C43, configurable under the config's `server:` section; the
 * defaults are limits of the spec.
 */
export interface TransportOptions {
  /** Time to receive the request line and headers (408, then closed). */
  headersTimeoutSeconds: number;
  /** Time to receive a body once its headers arrived (408, then closed). */
  bodyTimeoutSeconds: number;
  /** Open connections at most; one more is answered 503 and closed. */
  maxConnections: number;
  /** Body bytes held at once across all requests; a body that would pass it is answered 503. */
  maxBodyBytesInFlight: number;
  /** After SIGTERM, how long kept-alive connections are still answered (503) before idle ones close. */
  shutdownGraceSeconds: number;
}

export const DEFAULT_TRANSPORT: TransportOptions = {
  headersTimeoutSeconds: LIMITS.headers_timeout_seconds.value,
  bodyTimeoutSeconds: LIMITS.body_timeout_seconds.value,
  maxConnections: LIMITS.connections_max.value,
  maxBodyBytesInFlight: LIMITS.body_bytes_in_flight_max.value,
  shutdownGraceSeconds: LIMITS.shutdown_grace_seconds.value,
};
