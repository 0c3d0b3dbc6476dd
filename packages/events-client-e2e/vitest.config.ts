import { withQuickRun } from '../../vitest.shared.js';

// Left out of `pnpm test:quick`; `pnpm test` runs them.
export default withQuickRun({
  'test/retries.test.ts': 'waits out real Retry-After delays of the rate limit',
  'test/split.test.ts': 'sends batches of several MiB',
  'test/example.test.ts': "runs the README's examples in child processes",
});
