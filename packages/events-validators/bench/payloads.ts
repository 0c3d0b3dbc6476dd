import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The integrator corpus (README of /work/shared/integrator-payloads), beside the repository. */
export const PAYLOAD_DIR = fileURLToPath(new URL('../../../../shared/integrator-payloads/', import.meta.url));

export type Json = Record<string, unknown>;

/** Every event of every payload file that has a `data` array, by file name. */
export function loadPayloadEvents(): Map<string, Json[]> {
  const out = new Map<string, Json[]>();
  if (!existsSync(PAYLOAD_DIR)) return out;
  for (const f of readdirSync(PAYLOAD_DIR).filter((x) => x.endsWith('.json')).sort()) {
    const body = JSON.parse(readFileSync(PAYLOAD_DIR + f, 'utf8')) as Json;
    if (Array.isArray(body.data)) out.set(f, body.data as Json[]);
  }
  return out;
}
