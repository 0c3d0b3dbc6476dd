import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
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

/** A fresh temporary folder holding these files (paths relative to it); its path is added to `temps`. */
export async function tempTree(files: Record<string, string>, temps: string[]): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'codegen-tree-'));
  temps.push(root);
  for (const [p, text] of Object.entries(files)) {
    await mkdir(dirname(join(root, p)), { recursive: true });
    await writeFile(join(root, p), text);
  }
  return root;
}
