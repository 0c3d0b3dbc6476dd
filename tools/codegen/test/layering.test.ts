// Imports of src/ go down the floors below and never round in a circle. A file may import from its own floor or
// a lower one; two folders never import each other (through any chain of folders); no file reaches itself
// through its imports, type-only imports included.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));

/**
 * The floor of each folder of src/ (`emitters/*` is each emitter's folder, `.` the files directly in src/),
 * lowest first, with why it stands there.
 */
const FLOORS: Record<string, number> = {
  // Reads the spec's files into plain values and names a problem's file and path; knows nothing of the IR.
  load: 0,
  // The IR's types, rules' included: plain data built from the spec; names no module that reads or writes it.
  ir: 1,
  // The target-neutral kit: literals, Markdown, TypeScript code, names, numbers, lookups and places in the
  // spec, shared by the rule kinds, the model and the emitters.
  kit: 2,
  // One module per rule kind and their table: read from the spec, checked and documented with the kit.
  rules: 3,
  // Builds the IR from the loaded spec, reading each rule through its kind's module.
  model: 4,
  // The emitter contract and the run (load, model, emitters, files written or compared).
  emit: 5,
  // Checks the repository against the IR and the spec as written (cited decisions, paths, prose values).
  check: 5,
  // One emitter per target package, a function of the IR; the emitters share only what lies below.
  'emitters/*': 6,
  // The table of emitters.
  emitters: 7,
  // The composition root: the CLI and the package's exports.
  '.': 8,
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((d) =>
      d.isDirectory() ? sourceFiles(join(dir, d.name)) : d.name.endsWith('.ts') ? [join(dir, d.name)] : [],
    )
    .sort();
}

const rel = (file: string): string => relative(SRC, file).split('\\').join('/');

/** The folder a file belongs to: its top folder of src/, or `emitters/<name>` for an emitter's files. */
function folderOf(file: string): string {
  const parts = rel(file).split('/');
  if (parts.length === 1) return '.';
  if (parts[0] === 'emitters' && parts.length > 2) return `emitters/${parts[1]}`;
  return parts[0] as string;
}

const floorOf = (folder: string): number | undefined =>
  FLOORS[folder.startsWith('emitters/') ? 'emitters/*' : folder];

/** The files of src/ a file imports (static, type-only, re-exports and `import()`), read by TypeScript's scanner. */
function importsOf(file: string): string[] {
  const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  return info.importedFiles
    .map((f) => f.fileName)
    .filter((s) => s.startsWith('./') || s.startsWith('../'))
    .map((s) => resolve(dirname(file), s.replace(/\.js$/, '.ts')));
}

/** The strongly connected components of a graph with more than one node, or one that reaches itself (Tarjan). */
function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(scc.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return found;
}

describe('codegen layering', () => {
  const files = sourceFiles(SRC);
  const graph = new Map(files.map((f) => [rel(f), importsOf(f).map(rel)]));

  it('imports only files that exist in src/', () => {
    const known = new Set(graph.keys());
    const missing = [...graph].flatMap(([f, to]) =>
      to.filter((t) => !known.has(t)).map((t) => `${f} -> ${t}`),
    );
    expect(missing).toEqual([]);
  });

  it('places every folder of src/ on a floor', () => {
    const folders = [...new Set(files.map(folderOf))].sort();
    expect(folders.filter((f) => floorOf(f) === undefined)).toEqual([]);
  });

  it('never imports from a higher floor', () => {
    const violations: string[] = [];
    for (const file of files) {
      const from = folderOf(file);
      for (const target of importsOf(file)) {
        const to = folderOf(target);
        if ((floorOf(to) ?? 99) > (floorOf(from) ?? -1))
          violations.push(`${rel(file)} imports ${rel(target)} (${from} -> ${to})`);
      }
    }
    expect(violations).toEqual([]);
  });

  it('has no import cycle between folders', () => {
    const folders = new Map<string, Set<string>>();
    for (const file of files) {
      const from = folderOf(file);
      const out = folders.get(from) ?? new Set<string>();
      folders.set(from, out);
      for (const target of importsOf(file)) if (folderOf(target) !== from) out.add(folderOf(target));
    }
    const graphOfFolders = new Map([...folders].map(([k, v]) => [k, [...v]]));
    expect(cycles(graphOfFolders).map((c) => c.join(' <-> '))).toEqual([]);
  });

  it('has no import cycle between files', () => {
    expect(cycles(graph).map((c) => `${c.length} files: ${c.join(', ')}`)).toEqual([]);
  });

  it('finds a cycle and a back import where there is one', () => {
    expect(
      cycles(
        new Map([
          ['a', ['b']],
          ['b', ['c']],
          ['c', ['a']],
          ['d', ['a']],
        ]),
      ),
    ).toEqual([['a', 'b', 'c']]);
    expect(cycles(new Map([['a', ['a']]]))).toEqual([['a']]);
    expect(floorOf('emitters/events-docs')! > floorOf('rules')!).toBe(true);
  });
});
