import { availableParallelism } from 'node:os';
import { defineConfig, type ViteUserConfig } from 'vitest/config';

// Workspace packages export `@org/source` -> src/*.ts so tests and typecheck run without a build;
// published consumers resolve the `types`/`default` conditions to dist (C95). Vite applies `import` and `default`
// by itself; listing them here would also hand `--conditions import` to Node, whose require() would then
// load a dual package's ESM build (pg-pool) where CommonJS code expects its CommonJS one.
const conditions = ['@org/source', 'module', 'node'];

/**
 * `pnpm test:quick` (EVENTS_TEST_QUICK=1): the tests that need no service and no browser, without the slow
 * files each package names (load, memory, crash and timing tests, child processes). `pnpm test` runs all.
 */
export const QUICK_RUN = process.env.EVENTS_TEST_QUICK === '1';

const shared = defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ['@org/source'] } },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
  },
});
export default shared;

/**
 * The shared config with `slow` (test file paths, each with why) left out of a quick run. A quick run uses a
 * worker per core: vitest's default leaves one core free (a single worker on 2 cores), which the full run keeps
 * for its timing tests; the files left in a quick run have none.
 */
export function withQuickRun(slow: Record<string, string>): ViteUserConfig {
  if (!QUICK_RUN) return shared;
  return {
    ...shared,
    test: {
      ...shared.test,
      exclude: ['**/node_modules/**', ...Object.keys(slow)],
      maxWorkers: Math.max(2, availableParallelism()),
      isolate: false,
    },
  };
}
