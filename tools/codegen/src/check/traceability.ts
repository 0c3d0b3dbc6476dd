import { access, readFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { Lexer, type Tokens } from 'marked';
import { SpecError } from '../load/spec-error.js';

/** A code span or link target that names a file or folder: has a slash, and an extension or a final slash. */
const PATH = /^[\w@.-]+(?:\/[\w@.*-]+)*(?:\/|\.\w+)$/;

const exists = (p: string) =>
  access(p).then(
    () => true,
    () => false,
  );

/** File and folder paths a Markdown text names: code spans and relative link targets. */
export function namedPaths(markdown: string): string[] {
  const out = new Set<string>();
  for (const m of markdown.matchAll(/`([^`\n]+)`/g))
    if (m[1]!.includes('/') && PATH.test(m[1]!)) out.add(m[1]!);
  for (const m of markdown.matchAll(/\]\(([^)\s#]+)(?:#[^)]*)?\)/g))
    if (!/^[a-z]+:/.test(m[1]!)) out.add(m[1]!);
  return [...out].sort();
}

/** Columns of the traceability table that must name files: each row names at least one of each. */
const FILE_COLUMNS = ['Code', 'Test'] as const;

/**
 * The first table after the `## Traceability` heading: each row must name a code file and a test file (in
 * code spans), so a row cannot lose its link to the code or the test silently.
 */
export function traceabilityRowProblems(markdown: string): string[] {
  const tokens = new Lexer().lex(markdown);
  const start = tokens.findIndex((t) => t.type === 'heading' && t.depth === 2 && t.text === 'Traceability');
  const table = tokens.slice(start + 1).find((t): t is Tokens.Table => t.type === 'table');
  if (start < 0 || !table) return ['has no "## Traceability" section with a table'];
  const problems: string[] = [];
  const heads = table.header.map((h) => h.text);
  const columns = FILE_COLUMNS.map((col) => [col, heads.indexOf(col)] as const);
  for (const [col, i] of columns) if (i < 0) problems.push(`the table has no column "${col}"`);
  table.rows.forEach((row, r) => {
    for (const [col, i] of columns)
      if (i >= 0 && namedPaths(row[i]?.text ?? '').length === 0)
        problems.push(
          `row ${r + 1} (${row[0]?.text ?? ''}: ${row[1]?.text ?? ''}) names no file in "${col}"`,
        );
  });
  return problems;
}

/**
 * The traceability table of spec/README.md (seed statement -> decision -> spec -> code -> test) names files;
 * each must exist, relative to the repository root or to the README itself, so the table cannot rot.
 * A glob (`spec/decisions/*.md`) needs the folder before its first `*`.
 */
export async function checkTraceability(root: string, readme = join(root, 'spec/README.md')): Promise<void> {
  const text = await readFile(readme, 'utf8');
  const shown = relative(root, readme).split('\\').join('/');
  const missing: string[] = [];
  for (const p of namedPaths(text)) {
    const target = p.includes('*') ? p.slice(0, p.indexOf('*')).replace(/[^/]*$/, '') : p;
    if (!(await exists(join(root, target))) && !(await exists(join(dirname(readme), target))))
      missing.push(p);
  }
  const rows = traceabilityRowProblems(text);
  if (rows.length)
    throw new SpecError(shown, 'Traceability', 'traceability-table', { problems: rows.join('; ') });
  if (missing.length)
    throw new SpecError(shown, 'Traceability', 'traceability-path-missing', {
      what: missing.length === 1 ? 'a path that does not exist' : 'paths that do not exist',
      paths: missing.join(', '),
    });
}
