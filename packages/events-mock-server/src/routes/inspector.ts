import { readFile, stat } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { received, requestError } from '../core/request-error.js';
import { contentTypeOf } from '../http/content-types.js';

/**
 * The inspector page (issue 13, C68): GET /inspector/ serves the built single-page app of
 * @org/events-inspector (index.html, then its hashed assets). The page holds no data and no token: it signs in
 * with POST /admin/session and reads the admin API with the session cookie, so serving it needs no auth.
 */
export interface InspectorSource {
  /** Absolute folder of the built page (holds index.html and assets/). */
  root?: string;
}

/** Vite names built assets `name-<content hash>.ext`: such a file never changes, so it is cached for a year. */
const HASHED = /^assets\/[^/]+-[A-Za-z0-9_-]{8,}\.[a-z0-9]+$/;

/**
 * The page only talks to its own origin: no CDN, no external fonts, no inline script. Framing is refused so
 * the signed-in page cannot be overlaid by another site.
 */
const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

/** Loaded lazily and guarded, like the docs: a missing inspector package must not keep the API from starting. */
export async function loadInspectorSource(): Promise<InspectorSource> {
  try {
    const { inspectorRoot } = await import('@org/events-inspector');
    return { root: inspectorRoot };
  } catch {
    return {};
  }
}

function notBuilt(reply: FastifyReply) {
  const re = requestError('inspector_not_built', '/inspector', {});
  return reply.code(re.status).headers(re.headers).send(re.body);
}

function unknownFile(reply: FastifyReply, rel: string) {
  const re = requestError('inspector_file_unknown', 'url', { received: received(rel) });
  return reply.code(re.status).send(re.body);
}

/** Whether the built page is there (index.html exists). */
async function built(root: string): Promise<boolean> {
  try {
    return (await stat(join(root, 'index.html'))).isFile();
  } catch {
    return false;
  }
}

async function serve(root: string, rel: string, reply: FastifyReply) {
  const base = resolve(root);
  // The router has decoded the path once already; decoding again would make `/inspector/%25` a 500 (C42).
  const name = rel === '' ? 'index.html' : rel;
  const file = resolve(base, `.${sep}${name}`);
  if (!file.startsWith(base + sep) || name.includes('\0')) return unknownFile(reply, rel);
  let body: Buffer;
  try {
    if (!(await stat(file)).isFile()) return unknownFile(reply, rel);
    body = await readFile(file);
  } catch {
    return unknownFile(reply, rel);
  }
  reply.headers(SECURITY_HEADERS);
  // index.html names the current hashed assets, so it is revalidated every time; hashed files never change.
  reply.header('cache-control', HASHED.test(name) ? 'public, max-age=31536000, immutable' : 'no-cache');
  return reply.type(contentTypeOf(file)).send(body);
}

export async function registerInspector(app: FastifyInstance, source?: InspectorSource): Promise<void> {
  const inspector = source ?? (await loadInspectorSource());
  // The page loads its assets by relative URLs, so it must be addressed as a folder.
  app.get('/inspector', async (_req, reply) => reply.redirect('/inspector/'));
  app.get('/inspector/*', async (req, reply) => {
    if (!inspector.root || !(await built(inspector.root))) return notBuilt(reply);
    return serve(inspector.root, (req.params as { '*': string })['*'], reply);
  });
}
