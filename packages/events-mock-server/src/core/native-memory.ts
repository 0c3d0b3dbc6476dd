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
    // musl and other libcs have no libc.so.6: the load throws and nothing changes.
    const koffi = createRequire(import.meta.url)('koffi') as typeof import('koffi');
    const mallopt = koffi.load('libc.so.6').func('int mallopt(int, int)') as (p: number, v: number) => number;
    return mallopt(M_MMAP_THRESHOLD, bytes) === 1
      ? { done: true, bytes }
      : { done: false, reason: 'mallopt refused' };
  } catch (e) {
    return { done: false, reason: `koffi: ${(e as Error).message}` };
  }
}
