import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The app lives in src/app and is built into dist/app, which the server serves at /inspector/. Preact's
// automatic JSX runtime is set on the transformer directly (no preset plugin, so no Babel in the build).
// Relative base: the page works under any mount point and never names a host (no CDN, no external fonts).
export default defineConfig({
  root: fileURLToPath(new URL('./src/app', import.meta.url)),
  base: './',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('./dist/app', import.meta.url)),
    emptyOutDir: true,
    assetsDir: 'assets',
    sourcemap: false,
  },
});
