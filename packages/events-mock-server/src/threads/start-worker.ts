import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * Starts the worker thread whose entry is `name` (without extension) beside the module at `here`. Built
 * (dist), the entry is plain JavaScript. From source (tests, tsx), it is TypeScript: a small eval'd bootstrap
 * registers tsx in the thread before importing it (Node 20 does not apply `--import` loaders to a worker's
 * entry), with the workspace's source condition. The ESM entry of tsx's API: the CommonJS one resolves its
 * loader wrongly from an eval'd worker.
 */
export function startWorker(here: string, name: string, options: WorkerOptions = {}): Worker {
  if (!here.endsWith('.ts')) return new Worker(new URL(`./${name}.js`, here), options);
  const tsx = createRequire(here)
    .resolve('tsx/esm/api')
    .replace(/\.cjs$/, '.mjs');
  const entry = new URL(`./${name}.ts`, here).href;
  const boot = `import(${JSON.stringify(pathToFileURL(tsx).href)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(boot, { ...options, eval: true, execArgv: ['--conditions=@org/source'] });
}
