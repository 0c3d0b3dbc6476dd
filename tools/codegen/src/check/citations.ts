import { readdir, readFile } from 'node:fs/promises';
import { extname, join, relative } from 'node:path';
import type { IR } from '../ir/types.js';
import { SpecError } from '../load/spec-error.js';

/** The folders whose code, tests, docs, spec and fixtures may cite decisions. */
export const CITING_ROOTS = ['packages', 'tools', 'spec', 'fixtures'];
/** Folders that hold installed or built output, never sources. */
const SKIP_DIRS = new Set(['node_modules', 'dist', '.turbo', 'coverage', 'test-artifacts', 'generated']);
const TEXT = new Set([
  '.ts',
  '.mts',
  '.cts',
  '.js',
  '.mjs',
  '.cjs',
  '.md',
  '.yaml',
  '.yml',
  '.json',
  '.sql',
  '.sh',
]);
const CITATION = /\bC\d{1,3}\b/g;

export interface Citation {
  /** Relative to the repository root, with forward slashes. */
  file: string;
  line: number;
  id: string;
}

async function walk(root: string, dir: string, skip: Set<string>, out: string[]): Promise<void> {
  let entries: import('node:fs').Dirent[];
  try {
    entries = await readdir(join(root, dir), { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    const rel = dir ? `${dir}/${e.name}` : e.name;
    if (e.isDirectory()) {
      if (!SKIP_DIRS.has(e.name) && !skip.has(rel)) await walk(root, rel, skip, out);
    } else if (TEXT.has(extname(e.name)) && !e.name.endsWith('.gen.ts')) out.push(rel);
  }
}

/**
 * Every decision id cited under packages/, tools/ and spec/ (sources, tests, docs), outside installed and
 * generated output: `generated` lists the folders emitters own, whose text comes from the spec anyway.
 */
export async function findCitations(root: string, generated: string[] = []): Promise<Citation[]> {
  const files: string[] = [];
  const skip = new Set(generated.map((g) => relative(root, join(root, g)).split('\\').join('/')));
  for (const top of CITING_ROOTS) await walk(root, top, skip, files);
  const out: Citation[] = [];
  for (const file of files.sort()) {
    const lines = (await readFile(join(root, file), 'utf8')).split('\n');
    lines.forEach((text, i) => {
      for (const m of text.matchAll(CITATION)) out.push({ file, line: i + 1, id: m[0] });
    });
  }
  return out;
}

/** Fails `pnpm gen` when a file cites a decision id that has no record in spec/decisions. */
export async function checkCitations(root: string, ir: IR, generated: string[] = []): Promise<void> {
  const known = new Set(ir.decisions.map((d) => d.id));
  const missing = (await findCitations(root, generated)).filter((c) => !known.has(c.id));
  const [first, ...rest] = missing;
  if (!first) return;
  const shown = rest.slice(0, 9).map((c) => `${c.file}:${c.line} ${c.id}`);
  if (rest.length > shown.length) shown.push(`${rest.length - shown.length} more`);
  throw new SpecError(first.file, `line ${first.line}`, 'citation-unknown', {
    id: first.id,
    more: shown.length ? `; also ${shown.join(', ')}` : '',
  });
}
