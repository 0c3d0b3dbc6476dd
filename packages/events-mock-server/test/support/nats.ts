// Real NATS JetStream for tests (C100): each test uses a stream and subjects of its own. The machine's server is
// at 127.0.0.1:4222 (NATS_TEST_URL overrides); when it cannot be reached the NATS tests skip with a reason,
// and CI (EVENTS_TEST_REQUIRE_SERVICES=1) fails instead.
import { connect } from '@nats-io/transport-node';
import { QUICK_RUN, serviceMissing } from './services.js';

export const NATS_URL = process.env.NATS_TEST_URL ?? 'nats://127.0.0.1:4222';

let reachable: Promise<boolean> | undefined;

/** Whether a JetStream server answers; says so once when it does not. */
export function natsReachable(): Promise<boolean> {
  reachable ??= (async () => {
    if (QUICK_RUN) return false;
    try {
      const nc = await connect({ servers: NATS_URL, timeout: 3000, reconnect: false });
      try {
        // A plain NATS server without JetStream would fail every test later, less clearly.
        await nc.request('$JS.API.INFO', undefined, { timeout: 3000 });
      } finally {
        await nc.close();
      }
      return true;
    } catch (e) {
      return serviceMissing(`NATS JetStream at ${NATS_URL}`, `is unreachable (${(e as Error).message})`);
    }
  })();
  return reachable;
}
