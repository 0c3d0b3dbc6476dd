#!/usr/bin/env node
// A committed entry for the bin, so a workspace install can link it before `dist/` is built (pnpm warns
// "Failed to create bin" for a bin whose file does not exist yet). The server itself is built.
const entry = new URL('../dist/bin.js', import.meta.url);
await import(entry.href).catch((e) => {
  if (e?.code !== 'ERR_MODULE_NOT_FOUND' || e.url !== entry.href) throw e;
  process.stderr.write(
    'events-mock-server: @org/events-mock-server is not built yet: run `pnpm build` in the repository first (or `pnpm start`)\n',
  );
  process.exit(1);
});
