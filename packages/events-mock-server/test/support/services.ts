// The services some tests need (PostgreSQL, Redis, NATS JetStream, Chromium). On a developer's machine a
// missing one skips its tests with one visible line; CI sets EVENTS_TEST_REQUIRE_SERVICES=1, and there a
// missing service fails the run, naming it, so no test silently stops running (issue 36).

/**
 * `pnpm test:quick` (EVENTS_TEST_QUICK=1) uses no service and no browser: the tests that need one skip without
 * trying to reach it, and the run's last line says what a quick run leaves out.
 */
export const QUICK_RUN = process.env.EVENTS_TEST_QUICK === '1';

/** Whether a missing service fails the run rather than skipping the tests that need it. */
export const SERVICES_REQUIRED = process.env.EVENTS_TEST_REQUIRE_SERVICES === '1';

/**
 * Says that `what` cannot be used and why: one line and `false` (skip), or, when services are required, an
 * error that fails the test file naming the service.
 */
export function serviceMissing(what: string, why: string): false {
  if (SERVICES_REQUIRED)
    throw new Error(`${what} ${why}, and EVENTS_TEST_REQUIRE_SERVICES=1 asks every test to run`);
  process.stderr.write(`\n*** ${what} ${why}: the tests that need it are SKIPPED ***\n\n`);
  return false;
}
