import { readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { type LoadedDecision, loadDecisions } from './decisions.js';
import { parseYaml } from './parse-yaml.js';
import { SpecError } from './spec-error.js';

export interface LoadedSpec {
  /** Folder holding openapi.yaml; file names in errors are relative to its parent. */
  dir: string;
  openapiFile: string;
  openapi: Record<string, unknown>;
  /** Data files named by `x-data`, parsed: key -> { file, value }. */
  data: Record<string, { file: string; value: unknown }>;
  /** The decision records of `decisions/*.md`, in file-name order (none when the folder is absent). */
  decisions: LoadedDecision[];
}

async function readYaml(path: string, shownAs: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    throw new SpecError(shownAs, '', 'unreadable-file', {
      reason: String((e as NodeJS.ErrnoException).code ?? e),
    });
  }
  return parseYaml(text, shownAs);
}

/** Reads spec/openapi.yaml and every data file it names. Validation of the OpenAPI part happens in validateOpenApi. */
export async function loadSpec(specDir: string): Promise<LoadedSpec> {
  const shown = (p: string) => relative(join(specDir, '..'), p) || p;
  const openapiPath = join(specDir, 'openapi.yaml');
  const openapi = (await readYaml(openapiPath, shown(openapiPath))) as Record<string, unknown>;
  if (typeof openapi !== 'object' || openapi === null)
    throw new SpecError(shown(openapiPath), '', 'expected-mapping', { found: String(openapi) });
  const xData = openapi['x-data'];
  if (typeof xData !== 'object' || xData === null)
    throw new SpecError(shown(openapiPath), 'x-data', 'x-data-not-mapping');
  const data: LoadedSpec['data'] = {};
  for (const key of Object.keys(xData).sort()) {
    const rel = (xData as Record<string, unknown>)[key];
    if (typeof rel !== 'string')
      throw new SpecError(shown(openapiPath), `x-data.${key}`, 'x-data-not-file-name');
    const path = join(specDir, rel);
    data[key] = { file: shown(path), value: await readYaml(path, shown(path)) };
  }
  const decisions = await loadDecisions(join(specDir, 'decisions'), shown);
  return { dir: specDir, openapiFile: shown(openapiPath), openapi, data, decisions };
}

/**
 * Validates the resolved OpenAPI document with swagger-parser (OpenAPI 3.1 schema + $ref resolution).
 * swagger-parser mutates what it is given, so it gets a copy.
 */
export async function validateOpenApi(file: string, resolved: Record<string, unknown>): Promise<void> {
  try {
    await SwaggerParser.validate(structuredClone(resolved) as never);
  } catch (e) {
    const err = e as { message?: string; details?: { instancePath?: string; message?: string }[] };
    const detail = err.details?.[0];
    if (detail)
      throw new SpecError(
        file,
        detail.instancePath?.replace(/^\//, '').replaceAll('/', '.') ?? '',
        'openapi-invalid',
        { detail: detail.message ?? String(e) },
      );
    const msg = String(err.message ?? e);
    const m = /Error resolving \$ref pointer "(.*?)"|Token "(.*?)" does not exist/.exec(msg);
    throw new SpecError(file, m?.[1] ?? m?.[2] ?? '', 'openapi-invalid', {
      detail: msg.split('\n')[0] ?? msg,
    });
  }
}
