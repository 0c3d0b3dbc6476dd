import { defineConfig } from 'vitest/config';

// Workspace packages export `@org/source` -> src/*.ts so tests and typecheck run without a build;
// published consumers resolve the `types`/`default` conditions to dist (C95). Vite applies `import` and `default`
// by itself; listing them here would also hand `--conditions import` to Node, whose require() would then
// load a dual package's ESM build (pg-pool) where CommonJS code expects its CommonJS one.
const conditions = ['@org/source', 'module', 'node'];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ['@org/source'] } },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
  },
});
