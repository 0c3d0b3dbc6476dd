import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach } from 'vitest';
import { parse, stringify } from 'yaml';

export const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
export const realSpecDir = join(repoRoot, 'spec');

/** Copies spec/ into a fresh temporary repository root and returns that root. */
export async function copySpec(): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'codegen-'));
  await cp(realSpecDir, join(root, 'spec'), { recursive: true });
  return root;
}

/** A maker of copies of spec/ (each returns its `spec` folder), removed after each test of the calling file. */
export function specCopies(): () => Promise<string> {
  const roots: string[] = [];
  afterEach(async () => {
    await Promise.all(roots.splice(0).map((t) => rm(t, { recursive: true, force: true })));
  });
  return async () => {
    const root = await copySpec();
    roots.push(root);
    return join(root, 'spec');
  };
}

/** Edits one YAML file of a copied spec in place. */
export async function editYaml(path: string, edit: (doc: Record<string, unknown>) => void): Promise<void> {
  const doc = parse(await readFile(path, 'utf8')) as Record<string, unknown>;
  edit(doc);
  await writeFile(path, stringify(doc));
}
