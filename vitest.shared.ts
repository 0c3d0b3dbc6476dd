import { defineConfig } from 'vitest/config';

// Workspace packages export `@org/source` -> src/*.ts so tests and typecheck run without a build;
// published consumers resolve the `import`/`types` conditions to dist.
const conditions = ['@org/source', 'import', 'module', 'node', 'default'];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ['@org/source'] } },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
  },
});
