import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The client package, whose bin is built and run (these tests live in the private e2e package, issue 36). */
const pkg = fileURLToPath(new URL('../../../events-client/', import.meta.url));
const packages = fileURLToPath(new URL('../../../', import.meta.url));
const tsc = fileURLToPath(new URL('../../node_modules/typescript/bin/tsc', import.meta.url));

/**
 * Builds the bin as published (tsc to dist/), and the workspace packages it imports when they were not
 * built yet (`pnpm test` builds them first through turbo's ^build).
 */
export function buildBin(): string {
  for (const dep of ['events-types', 'events-validators'])
    if (!existsSync(`${packages}${dep}/dist/index.js`))
      execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: `${packages}${dep}` });
  execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: pkg });
  return `${pkg}dist/cli/bin.js`;
}

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the built bin to completion with these arguments, environment additions and stdin. */
export function runBin(
  bin: string,
  args: string[],
  env: Record<string, string> = {},
  stdin?: string,
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], {
      cwd: pkg,
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d;
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin ?? '');
  });
}
