import { createRequire } from 'node:module';
import { LIMITS } from '@org/events-types';

/** glibc's `mallopt` parameter number for the mmap threshold (malloc.h). */
const M_MMAP_THRESHOLD = -3;

/** What `fixMmapThreshold` did, for the start-up log. */
export type MmapThresholdOutcome = { done: true; bytes: number } | { done: false; reason: string };

/**
 * Fixes glibc's mmap threshold (C59) so multi-MiB bodies are unmapped when freed instead of leaving holes in the
 * heap that RSS never gives back. The bin calls it; `startServer` does not (a library does not change its
 * host's allocator), so an embedding process that wants the same calls it itself.
 */
export function fixMmapThreshold(
  bytes: number = LIMITS.malloc_mmap_threshold_bytes.value,
  env: NodeJS.ProcessEnv = process.env,
): MmapThresholdOutcome {
  if (process.platform !== 'linux') return { done: false, reason: `not linux (${process.platform})` };
  // An operator's own tuning wins.
  if (env.MALLOC_MMAP_THRESHOLD_ !== undefined || env.GLIBC_TUNABLES?.includes('mmap_threshold'))
    return { done: false, reason: 'set by the environment' };
  try {
    const mallopt = glibc().func('int mallopt(int, int)') as (p: number, v: number) => number;
    return mallopt(M_MMAP_THRESHOLD, bytes) === 1
      ? { done: true, bytes }
      : { done: false, reason: 'mallopt refused' };
  } catch (e) {
    return { done: false, reason: `koffi: ${(e as Error).message}` };
  }
}

/** glibc through the `koffi` FFI library; musl and other libcs have no libc.so.6: the load throws. */
function glibc(): ReturnType<typeof import('koffi').load> {
  const koffi = createRequire(import.meta.url)('koffi') as typeof import('koffi');
  return koffi.load('libc.so.6');
}

/** What `mallocTrimmer` found: glibc's `malloc_trim`, or why there is none. */
export type Trimmer = { ok: true; trim: () => void } | { ok: false; reason: string };

/**
 * glibc's `malloc_trim(0)` (C116): gives the system back every free page of every malloc arena, the main
 * heap's and each thread's, not only the free top of the heap that `free` returns by itself. Small blocks
 * freed in the middle of the heap (the socket reads a slow body arrived in, below the mmap threshold of
 * C59) otherwise stay in RSS for good: 200 slow uploads left 210 MB of such holes. It walks the arenas
 * (about 30 ms for 200 MB), so the bin runs it only when a load has ended, after C110's collection (run
 * twice: V8 frees the memory of dead array buffers on a thread of its own after a collection, and the next
 * one first finishes that). Elsewhere (not Linux, not glibc, no koffi) there is none.
 */
export function mallocTrimmer(): Trimmer {
  if (process.platform !== 'linux') return { ok: false, reason: `not linux (${process.platform})` };
  try {
    const mallocTrim = glibc().func('int malloc_trim(size_t)') as (pad: number) => number;
    return { ok: true, trim: () => void mallocTrim(0) };
  } catch (e) {
    return { ok: false, reason: `koffi: ${(e as Error).message}` };
  }
}
