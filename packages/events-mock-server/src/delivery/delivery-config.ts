import { LIMITS } from '@org/events-types';

/** Where accepted events go onward (C100). Each sink names the ad accounts it covers; null covers all. */
export type SinkConfig = ConversionsApiSinkConfig | NatsSinkConfig;

interface SinkCommon {
  /** The outbox key of the sink: entries belong to a name, so renaming a sink leaves its entries behind. */
  name: string;
  adAccounts: string[] | null;
}

export interface ConversionsApiSinkConfig extends SinkCommon {
  kind: 'conversions_api';
  /** Base URL such as https://api.pinterest.com; /v5/ad_accounts/{id}/events is appended. */
  url: string;
  /** The upstream's ad account; null: the same id as here. */
  upstreamAdAccount: string | null;
  /** Where the token is read at start: an environment variable or a file (never the config itself). */
  tokenEnv: string | null;
  tokenFile: string | null;
  batchSize: number;
}

export interface NatsSinkConfig extends SinkCommon {
  kind: 'nats';
  /** nats://host:port */
  url: string;
  stream: string;
  /** Subject of an account: `<prefix>.<ad account id>`. */
  subjectPrefix: string;
  maxAgeSeconds: number;
  maxBytes: number;
  duplicateWindowSeconds: number;
  batchSize: number;
}

export interface DeliveryConfig {
  sinks: SinkConfig[];
  maxAttempts: number;
  retryBaseMs: number;
  retryMaxSeconds: number;
  leaseSeconds: number;
  retentionSeconds: number;
  timeoutSeconds: number;
  concurrency: number;
  batchesPerClaim: number;
  pollIntervalMs: number;
}

export const DEFAULT_DELIVERY: DeliveryConfig = {
  sinks: [],
  maxAttempts: LIMITS.delivery_max_attempts.value,
  retryBaseMs: LIMITS.delivery_retry_base_ms.value,
  retryMaxSeconds: LIMITS.delivery_retry_max_seconds.value,
  leaseSeconds: LIMITS.delivery_lease_seconds.value,
  retentionSeconds: LIMITS.delivery_retention_seconds.value,
  timeoutSeconds: LIMITS.delivery_timeout_seconds.value,
  concurrency: LIMITS.delivery_concurrency.value,
  batchesPerClaim: LIMITS.delivery_batches_per_claim.value,
  pollIntervalMs: LIMITS.delivery_poll_interval_ms.value,
};

/** The environment variable of the `--forward` token. */
export const FORWARD_TOKEN_ENV = 'EVENTS_FORWARD_TOKEN';
/** Names of the sinks the quick-start flags add. */
export const FORWARD_SINK = 'forward';
export const PUBLISH_SINK = 'publish';
export const DEFAULT_STREAM = 'EVENTS';
export const DEFAULT_SUBJECT_PREFIX = 'events';

/** The sink of `--forward URL [--forward-account ID]`: every account, the token from EVENTS_FORWARD_TOKEN. */
export function forwardSink(url: string, upstreamAdAccount: string | null): ConversionsApiSinkConfig {
  return {
    kind: 'conversions_api',
    name: FORWARD_SINK,
    adAccounts: null,
    url,
    upstreamAdAccount,
    tokenEnv: FORWARD_TOKEN_ENV,
    tokenFile: null,
    batchSize: LIMITS.batch_max_events.value,
  };
}

/** The sink of `--publish nats://host:port`: every account, the stream's defaults. */
export function publishSink(url: string): NatsSinkConfig {
  return {
    kind: 'nats',
    name: PUBLISH_SINK,
    adAccounts: null,
    url,
    stream: DEFAULT_STREAM,
    subjectPrefix: DEFAULT_SUBJECT_PREFIX,
    maxAgeSeconds: LIMITS.delivery_stream_max_age_seconds.value,
    maxBytes: -1,
    duplicateWindowSeconds: LIMITS.delivery_stream_duplicate_window_seconds.value,
    batchSize: LIMITS.batch_max_events.value,
  };
}

/** The one line printed at start per sink: where events go, never the token. */
export function describeSink(s: SinkConfig): string {
  const accounts = s.adAccounts ? s.adAccounts.join(', ') : 'all ad accounts';
  if (s.kind === 'nats')
    return `delivery: ${s.name} publishes ${accounts} to NATS ${s.url} (stream ${s.stream}, subjects ${s.subjectPrefix}.<ad account>)`;
  const token = s.tokenEnv ? `token from $${s.tokenEnv}` : `token from file ${s.tokenFile}`;
  const upstream = s.upstreamAdAccount ? ` as ad account ${s.upstreamAdAccount}` : '';
  return `delivery: ${s.name} forwards ${accounts} to ${s.url}${upstream} (${token})`;
}
