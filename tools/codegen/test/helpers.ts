import { cp, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, stringify } from 'yaml';

export const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
export const realSpecDir = join(repoRoot, 'spec');

/** Copies spec/ into a fresh temporary repository root and returns that root. */
export async function copySpec(): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'codegen-'));
  await cp(realSpecDir, join(root, 'spec'), { recursive: true });
  return root;
}

/** Edits one YAML file of a copied spec in place. */
export async function editYaml(path: string, edit: (doc: Record<string, unknown>) => void): Promise<void> {
  const doc = parse(await readFile(path, 'utf8')) as Record<string, unknown>;
  edit(doc);
  await writeFile(path, stringify(doc));
}
