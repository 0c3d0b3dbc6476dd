import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import type { IR } from '../ir/types.js';
import { type LoadedSpec, loadSpec } from '../load/load-spec.js';
import { buildIR } from '../model/build-ir.js';
import type { EmittedFile, Emitter } from './emitter.js';

export interface GenOptions {
  /** Repository root: emitted paths are relative to it. */
  root: string;
  /** Folder holding openapi.yaml; defaults to <root>/spec. */
  specDir?: string;
  check?: boolean;
  emitters: Emitter[];
  /** Checks of the repository against the IR and the spec as written, run before anything is written (the CLI's). */
  verify?: (ir: IR, spec: LoadedSpec) => Promise<void>;
}

export interface GenResult {
  ir: IR;
  files: EmittedFile[];
  /** Files whose committed content differs from what the spec gives (or that are missing). */
  changed: string[];
  /** Files in generated folders that no emitter produces any more. */
  stale: string[];
}

/** Every file below `dir`, recursively; none when it does not exist. */
export async function listFiles(dir: string): Promise<string[]> {
  let entries: import('node:fs').Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const e of entries) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await listFiles(p)));
    else out.push(p);
  }
  return out;
}

export async function emitAll(ir: IR, emitters: Emitter[]): Promise<EmittedFile[]> {
  const files = emitters.flatMap((e) => e.emit(ir));
  const seen = new Set<string>();
  for (const f of files) {
    if (seen.has(f.path)) throw new Error(`two emitters write ${f.path}`);
    seen.add(f.path);
    if (!emitters.some((e) => e.owns.some((o) => f.path.startsWith(`${o}/`))))
      throw new Error(`${f.path} is outside every emitter's generated folders`);
  }
  return files.sort((a, b) => (a.path < b.path ? -1 : 1));
}

/** Loads the spec, builds the IR, emits every file; writes them (or, with check, only compares). */
export async function runGen(opts: GenOptions): Promise<GenResult> {
  const spec = await loadSpec(opts.specDir ?? join(opts.root, 'spec'));
  const ir = await buildIR(spec);
  await opts.verify?.(ir, spec);
  const files = await emitAll(ir, opts.emitters);
  const wanted = new Map(files.map((f) => [f.path, f.content]));
  const changed: string[] = [];
  for (const f of files) {
    const abs = join(opts.root, f.path);
    const current = await readFile(abs, 'utf8').catch(() => undefined);
    if (current === f.content) continue;
    changed.push(f.path);
    if (!opts.check) {
      await mkdir(dirname(abs), { recursive: true });
      await writeFile(abs, f.content);
    }
  }
  const stale: string[] = [];
  for (const e of opts.emitters)
    for (const owned of e.owns)
      for (const abs of await listFiles(join(opts.root, owned))) {
        const rel = relative(opts.root, abs).split('\\').join('/');
        if (wanted.has(rel)) continue;
        stale.push(rel);
        if (!opts.check) await rm(abs);
      }
  return { ir, files, changed: changed.sort(), stale: stale.sort() };
}
