import { readFile, stat } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { RequestError, requestError } from '../core/request-error.js';
import { JSON_CONTENT_TYPE } from '../generated/routes.gen.js';
import { contentTypeOf } from '../http/content-types.js';
import { openApiServedAt, originOf } from './openapi-origin.js';

/**
 * Mount point of the reference docs (issue point 7): GET /docs (the static site of @org/events-docs) and
 * GET /openapi.yaml, from `docsRoot` (absolute folder of the static site) and `openapiYaml` of
 * @org/events-docs. events-docs must never depend on this package (it would be a cycle).
 */
export interface DocsSource {
  docsRoot?: string;
  openapiYaml?: string;
}

/**
 * Loaded lazily and guarded: the docs package reads its generated files when it loads, and a docs build
 * problem must not keep the API from starting; /docs then answers 404.
 */
export async function loadDocsSource(): Promise<DocsSource> {
  try {
    const { docsRoot, openapiYaml } = await import('@org/events-docs');
    return { docsRoot, openapiYaml };
  } catch {
    return {};
  }
}

/** The answers of this file are rows of the outcome table (C109); `details` only where it helps. */
function refuse(reply: FastifyReply, re: RequestError) {
  return reply.code(re.status).send(re.body);
}

const missing = (reply: FastifyReply, what: string) =>
  refuse(reply, requestError('docs_not_built', what, {}));
const noFile = (reply: FastifyReply) => refuse(reply, new RequestError('not_found', []));

/** A small static file handler: only files under docsRoot, no directory listing, index.html for folders. */
async function serveFile(root: string, rel: string, reply: FastifyReply) {
  const base = resolve(root);
  // The router has decoded the path once already; decoding again made `/docs/%25` a 500 (C42).
  let file = resolve(base, `.${sep}${rel}`);
  if (file !== base && !file.startsWith(base + sep)) return noFile(reply);
  try {
    if ((await stat(file)).isDirectory()) file = join(file, 'index.html');
    const body = await readFile(file);
    return reply.type(contentTypeOf(file)).send(body);
  } catch {
    return noFile(reply);
  }
}

const OPENAPI_FILES = [
  ['/openapi.yaml', 'yaml', 'application/yaml; charset=utf-8'],
  ['/openapi.json', 'json', `${JSON_CONTENT_TYPE}; charset=utf-8`],
  ['/docs/openapi.yaml', 'yaml', 'application/yaml; charset=utf-8'],
  ['/docs/openapi.json', 'json', `${JSON_CONTENT_TYPE}; charset=utf-8`],
] as const;

export async function registerDocs(app: FastifyInstance, source?: DocsSource): Promise<void> {
  const docs = source ?? (await loadDocsSource());
  // The document names the origin it is served from (servers), as YAML and as JSON.
  for (const [path, format, type] of OPENAPI_FILES)
    app.get(path, async (req, reply) =>
      docs.openapiYaml
        ? reply.type(type).send(openApiServedAt(docs.openapiYaml, originOf(req))[format])
        : missing(reply, path),
    );
  app.get('/docs', async (_req, reply) => reply.redirect('/docs/'));
  app.get('/docs/*', async (req, reply) => {
    if (!docs.docsRoot) return missing(reply, '/docs');
    return serveFile(docs.docsRoot, (req.params as { '*': string })['*'] || '.', reply);
  });
}
