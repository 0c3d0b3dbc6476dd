// Imports go down: the composition root above the app, the app above routes, routes above the HTTP helpers,
// those above services, services above storage, storage above the core. A module may import from its own
// layer or a lower one, never from a higher one. Issue 36: and no file imports itself through others (no
// import cycle between files of src/, type-only imports included), and no two folders of one layer import
// each other (one of them is below the other, or they are apart).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));

/** Layer of each top-level folder of src/ (files directly in src/ are the composition root). */
const LAYERS: Record<string, number> = {
  core: 0,
  generated: 0,
  // Worker threads and what crosses between them: below both hops that run threads (pipeline/, store/).
  threads: 0,
  store: 1,
  auth: 2,
  config: 2,
  metrics: 2,
  pipeline: 2,
  ratelimit: 2,
  faults: 2,
  requestlog: 2,
  delivery: 2,
  http: 3,
  routes: 4,
  app: 5,
  '.': 6,
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? sourceFiles(join(dir, d.name)) : d.name.endsWith('.ts') ? [join(dir, d.name)] : [],
  );
}

const folderOf = (file: string): string => {
  const rel = relative(SRC, file);
  return rel.includes('/') ? (rel.split('/')[0] as string) : '.';
};

function relativeImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)].map((m) => m[1] as string);
}

/** The file an import names: `./x.js` is `./x.ts` in src/, a folder its `index.ts`. */
function resolveImport(file: string, spec: string): string {
  const target = resolve(dirname(file), spec);
  if (target.endsWith('.js')) return `${target.slice(0, -3)}.ts`;
  if (target.endsWith('.ts')) return target;
  return existsSync(`${target}.ts`) ? `${target}.ts` : join(target, 'index.ts');
}

/** The files of src/ each file imports (relative imports, `import type` and `export ... from` included). */
function importGraph(files: readonly string[]): Map<string, string[]> {
  const known = new Set(files);
  return new Map(
    files.map((f) => [
      f,
      [...new Set(relativeImports(f).map((s) => resolveImport(f, s)))].filter((t) => known.has(t)),
    ]),
  );
}

/**
 * Every import cycle, one per strongly connected component of the graph (Tarjan), each as the path of files
 * that closes it: `a.ts -> b.ts -> a.ts`.
 */
function importCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v) as number);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop() as string;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) components.push(component);
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  // One cycle through each component: the shortest path back to its first file (by name), breadth first.
  return components.map((component) => {
    const inside = new Set(component);
    const start = [...component].sort()[0] as string;
    const from = new Map<string, string>();
    const queue = [start];
    for (let i = 0; i < queue.length; i++) {
      const v = queue[i] as string;
      for (const w of graph.get(v) ?? []) {
        if (!inside.has(w)) continue;
        if (w === start) {
          const path = [v];
          while (path[0] !== start) path.unshift(from.get(path[0] as string) as string);
          return [...path, start];
        }
        if (!from.has(w)) {
          from.set(w, v);
          queue.push(w);
        }
      }
    }
    return component;
  });
}

/** The files that reach `file` and are reached from it, sorted. */
function strongComponentOf(graph: ReadonlyMap<string, readonly string[]>, file: string): string[] {
  const reach = (edges: ReadonlyMap<string, readonly string[]>): Set<string> => {
    const seen = new Set([file]);
    const queue = [file];
    for (let i = 0; i < queue.length; i++)
      for (const w of edges.get(queue[i] as string) ?? [])
        if (!seen.has(w)) {
          seen.add(w);
          queue.push(w);
        }
    return seen;
  };
  const reversed = new Map<string, string[]>();
  for (const [v, ws] of graph) for (const w of ws) reversed.set(w, [...(reversed.get(w) ?? []), v]);
  const back = reach(reversed);
  return [...reach(graph)].filter((f) => back.has(f)).sort();
}

/**
 * The unit of the rule on folders: a folder of src/, except that each file of `generated/` stands alone. Those
 * are separate outputs of `pnpm gen` (tools/codegen), not one module: request-problems.gen.ts is data below
 * core/request-error.ts, request-checks.gen.ts is checks built on core/request-checks.ts, so `generated/`
 * and `core/` as folders name each other while no file of either is above itself. And each folder of
 * `store/` is a unit of its own (issue 36): a backend (`sqlite/`, `pg/`) imports the interface and what the
 * backends share, and those never import a backend, nor does anything a backend imports.
 */
const unitOf = (file: string): string => {
  const folder = folderOf(file);
  if (folder === 'generated') return relative(SRC, file);
  const [, sub, ...rest] = relative(SRC, file).split('/');
  return folder === 'store' && rest.length > 0 ? `store/${sub}` : folder;
};

describe('server package layering', () => {
  const files = sourceFiles(SRC);

  it('places every folder of src/ in a layer', () => {
    const folders = [...new Set(files.map(folderOf))].sort();
    expect(folders.filter((f) => !(f in LAYERS))).toEqual([]);
  });

  it('never imports from a higher layer', () => {
    const violations: string[] = [];
    for (const file of files) {
      const from = folderOf(file);
      for (const spec of relativeImports(file)) {
        const to = folderOf(resolve(dirname(file), spec));
        if ((LAYERS[to] ?? 99) > (LAYERS[from] ?? -1))
          violations.push(`${relative(SRC, file)} imports ${spec} (${from} -> ${to})`);
      }
    }
    expect(violations).toEqual([]);
  });

  it('has no import cycle between files of src/', () => {
    const graph = importGraph(files);
    const cycles = importCycles(graph).map((cycle) => {
      // The cycle's path, and the other files of its tangle (its strongly connected component), if any.
      const others = strongComponentOf(graph, cycle[0] as string).filter((f) => !cycle.includes(f));
      const path = cycle.map((f) => relative(SRC, f)).join(' -> ');
      return others.length
        ? `${path} (tangled with ${others.map((f) => relative(SRC, f)).join(', ')})`
        : path;
    });
    // Each cycle reads `a.ts -> b.ts -> ... -> a.ts`; printed so the failure names the files to untie.
    for (const c of cycles) console.error(`import cycle: ${c}`);
    expect(cycles).toEqual([]);
  });

  it('has no two folders of one layer importing each other', () => {
    const edges = new Map<string, string[]>();
    for (const [file, targets] of importGraph(files))
      for (const target of targets) {
        const [a, b] = [unitOf(file), unitOf(target)];
        if (a === b) continue;
        const key = `${a} -> ${b}`;
        edges.set(key, [...(edges.get(key) ?? []), `${relative(SRC, file)} -> ${relative(SRC, target)}`]);
      }
    const mutual: string[] = [];
    for (const [key, these] of edges) {
      const [a, b] = key.split(' -> ') as [string, string];
      const back = edges.get(`${b} -> ${a}`);
      if (back && a < b) mutual.push(`${a} <-> ${b}: ${[...these, ...back].join(', ')}`);
    }
    for (const m of mutual) console.error(`mutual imports: ${m}`);
    expect(mutual).toEqual([]);
  });
});
