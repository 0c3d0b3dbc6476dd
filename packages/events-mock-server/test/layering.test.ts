// Imports go down: the composition root above the app, the app above routes, routes above the HTTP helpers,
// those above services, services above storage, storage above the core. A module may import from its own
// layer or a lower one, never from a higher one.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));

/** Layer of each top-level folder of src/ (files directly in src/ are the composition root). */
const LAYERS: Record<string, number> = {
  core: 0,
  generated: 0,
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
});
