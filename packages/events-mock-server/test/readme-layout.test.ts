// The package README is for users and operators (issue 36): at most 700 lines, and its "## Layout" section
// names every folder of src/ (recursively, `generated` included) and no path that does not exist. A Layout
// entry is a list item that opens with a code span of a path under src/ (`src/store/pg/`); the other code
// spans of the item that name a file (`gate.ts`, `src/index.ts`) must exist, relative to the item's folder
// unless they start with src/.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const PKG = fileURLToPath(new URL('..', import.meta.url));
const README = readFileSync(join(PKG, 'README.md'), 'utf8');
const MAX_LINES = 700;

/** The text of the `## Layout` section, up to the next second-level heading. */
function layoutSection(text: string): string {
  const start = text.search(/^## Layout$/m);
  if (start < 0) throw new Error('README.md has no "## Layout" section');
  const rest = text.slice(start + '## Layout'.length);
  const end = rest.search(/^## /m);
  return end < 0 ? rest : rest.slice(0, end);
}

/** Every folder under src/, as `src/a/b`, recursively. */
function sourceFolders(dir = 'src'): string[] {
  return readdirSync(join(PKG, dir), { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) => {
      const path = posix.join(dir, d.name);
      return [path, ...sourceFolders(path)];
    });
}

const codeSpans = (line: string): string[] => [...line.matchAll(/`([^`]+)`/g)].map((m) => m[1] as string);
const withoutSlash = (path: string): string => path.replace(/\/+$/, '');
/** A code span that names a file: a path ending in a source or data extension, not a URL or a pattern. */
const namesFile = (span: string): boolean => /^[\w./-]+\.(?:ts|mts|mjs|js|json|yaml|sql)$/.test(span);

interface Entry {
  /** The path the item opens with, as written (`src/store/`, `src/bin.ts`). */
  path: string;
  /** The folder other names of the item are relative to. */
  folder: string;
  /** Every path the item names, relative to the package. */
  named: string[];
}

function layoutEntries(section: string): Entry[] {
  return section
    .split('\n')
    .filter((line) => /^- `src\//.test(line))
    .map((line) => {
      const [first, ...others] = codeSpans(line);
      const path = first as string;
      const isFolder = path.endsWith('/') || !namesFile(path);
      const folder = isFolder ? withoutSlash(path) : dirname(path);
      const named = [
        withoutSlash(path),
        ...others
          .filter((span) => span.startsWith('src/') || namesFile(span))
          .map((span) => withoutSlash(span.startsWith('src/') ? span : posix.join(folder, span))),
      ];
      return { path, folder, named };
    });
}

describe('the package README', () => {
  const section = layoutSection(README);
  const entries = layoutEntries(section);

  it(`has at most ${MAX_LINES} lines`, () => {
    const lines = README.replace(/\n$/, '').split('\n').length;
    expect(
      lines,
      `README.md has ${lines} lines; measurement notes belong in bench/README.md`,
    ).toBeLessThanOrEqual(MAX_LINES);
  });

  it('names every folder of src/ in its Layout section', () => {
    expect(entries.length).toBeGreaterThan(5);
    const listed = new Set(entries.filter((e) => e.path.endsWith('/')).map((e) => withoutSlash(e.path)));
    const missing = sourceFolders().filter((folder) => !listed.has(folder));
    expect(missing, 'folders of src/ with no "- `src/<folder>/`: ..." item in the README\'s Layout').toEqual(
      [],
    );
  });

  it('names no path in its Layout section that does not exist', () => {
    const gone = entries.flatMap((e) => e.named).filter((path) => !existsSync(join(PKG, path)));
    expect(gone, "paths the README's Layout names that are not in the package").toEqual([]);
  });

  it('opens each Layout item on a folder or a file of its kind', () => {
    const wrongKind = entries
      .filter((e) => existsSync(join(PKG, e.path)))
      .filter((e) => e.path.endsWith('/') !== statSync(join(PKG, e.path)).isDirectory())
      .map((e) => e.path);
    expect(wrongKind, 'a folder is written with a trailing slash, a file without').toEqual([]);
  });
});
