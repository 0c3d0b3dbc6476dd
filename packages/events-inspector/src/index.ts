/**
 * @org/events-inspector: the inspector web page of the mock server (issue 13), and what a server needs to
 * serve it. The page itself (Vite + Preact, src/app) is built into dist/app by `pnpm build`; this entry only
 * names that folder, with node:fs/node:path/node:url only, so the server can depend on it without a bundler.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const packageRoot = fileURLToPath(new URL('..', import.meta.url));

/** Absolute path of the built page (index.html and assets/); mount it at /inspector/. */
export const inspectorRoot: string = join(packageRoot, 'dist', 'app');

/** Whether the page has been built (the server answers 503 with the build command when it has not). */
export function inspectorBuilt(root: string = inspectorRoot): boolean {
  return existsSync(join(root, 'index.html'));
}
