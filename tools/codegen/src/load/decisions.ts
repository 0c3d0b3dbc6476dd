import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseYaml } from './parse-yaml.js';
import { SpecError } from './spec-error.js';

/** One file of spec/decisions: its YAML front matter, parsed, and the Markdown after it. */
export interface LoadedDecision {
  file: string;
  frontMatter: unknown;
  body: string;
}

const FENCE = '---';

/** Splits `---\n<yaml>\n---\n<markdown>`; the front matter is parsed with the same YAML reader as the spec. */
export function parseDecisionFile(text: string, file: string): LoadedDecision {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  if (lines[0] !== FENCE) throw new SpecError(file, 'line 1', 'front-matter-open');
  const end = lines.indexOf(FENCE, 1);
  if (end < 0) throw new SpecError(file, 'line 1', 'front-matter-close');
  return {
    file,
    frontMatter: parseYaml(lines.slice(1, end).join('\n'), file, 2),
    body: lines.slice(end + 1).join('\n'),
  };
}

/** Reads every `*.md` of the decisions folder, sorted by file name; none when the folder does not exist. */
export async function loadDecisions(dir: string, shown: (p: string) => string): Promise<LoadedDecision[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  const out: LoadedDecision[] = [];
  for (const name of names.filter((n) => n.endsWith('.md')).sort()) {
    const path = join(dir, name);
    out.push(parseDecisionFile(await readFile(path, 'utf8'), shown(path)));
  }
  return out;
}
