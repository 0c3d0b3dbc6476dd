import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const pkg = fileURLToPath(new URL('../..', import.meta.url));

export interface Child {
  proc: ChildProcess;
  url: string;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (or the signal name) once the process has ended. */
  exited: Promise<number | string>;
}

/**
 * Runs the real bin (src/bin.ts through tsx, workspace packages from source) in a child process and waits
 * until it prints its URL. Fails with the child's output if it exits first.
 */
export function spawnBin(args: string[], env: Record<string, string> = {}): Promise<Child> {
  const proc = spawn(
    process.execPath,
    ['--conditions=@org/source', '--import', 'tsx', 'src/bin.ts', ...args],
    {
      cwd: pkg,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  let err = '';
  proc.stdout?.on('data', (d) => {
    out += String(d);
  });
  proc.stderr?.on('data', (d) => {
    err += String(d);
  });
  const exited = new Promise<number | string>((resolve) =>
    proc.on('exit', (code, signal) => resolve(code ?? signal ?? -1)),
  );
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`bin did not start in time:\n${out}\n${err}`)), 20_000);
    const onData = () => {
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (!m) return;
      clearTimeout(timer);
      proc.stdout?.off('data', onData);
      resolve({ proc, url: m[1] as string, stdout: () => out, stderr: () => err, exited });
    };
    proc.stdout?.on('data', onData);
    exited.then((code) => {
      clearTimeout(timer);
      reject(
        Object.assign(new Error(`bin exited (${code}) before listening:\n${out}\n${err}`), {
          code,
          out,
          err,
        }),
      );
    });
  });
}

/** Runs the bin to completion (for arguments that make it exit) and returns its exit code and output. */
export function runBin(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | string; stdout: string; stderr: string }> {
  const proc = spawn(
    process.execPath,
    ['--conditions=@org/source', '--import', 'tsx', 'src/bin.ts', ...args],
    {
      cwd: pkg,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (d) => {
    stdout += String(d);
  });
  proc.stderr.on('data', (d) => {
    stderr += String(d);
  });
  return new Promise((resolve) =>
    proc.on('exit', (code, signal) => resolve({ code: code ?? signal ?? -1, stdout, stderr })),
  );
}
