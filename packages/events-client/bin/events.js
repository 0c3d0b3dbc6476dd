#!/usr/bin/env -S node --max-semi-space-size=1
// A committed entry for the `events` bin, so a workspace install can link it before `dist/` is built
// (pnpm warns "Failed to create bin" for a bin whose file does not exist yet). The CLI itself is built.
const entry = new URL('../dist/cli/bin.js', import.meta.url);
await import(entry.href).catch((e) => {
  if (e?.code !== 'ERR_MODULE_NOT_FOUND' || e.url !== entry.href) throw e;
  process.stderr.write(
    'events: @org/events-client is not built yet: run `pnpm build` in the repository first\n',
  );
  process.exit(1);
});
