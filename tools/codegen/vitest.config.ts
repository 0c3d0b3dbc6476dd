import { withQuickRun } from '../../vitest.shared.js';

// Left out of `pnpm test:quick`: each runs the whole generator many times over edited copies of the spec.
// `pnpm test` runs them.
export default withQuickRun({
  'test/scenarios.test.ts': 'one full generation per scenario, with file snapshots',
  'test/pipeline.test.ts': 'full generations into temporary folders (determinism, leftovers, --check)',
  'test/prose-values.test.ts': 'full generations over copies of the spec with limits edited',
  'test/one-path.test.ts': 'full generations over copies of the spec',
});
