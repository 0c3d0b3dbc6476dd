// The measuring side of a bench child: the parent asks for figures over IPC, so the load generator's own
// event loop and CPU never count. `start` resets the window; `stats` answers the figures since `start`.
// Plain JavaScript, like the other children, so no transpiler adds its memory to the RSS figures.
// `stop` exits cleanly so a `--cpu-prof` profile (pnpm bench --profile) is written.
import { monitorEventLoopDelay } from 'node:perf_hooks';

/**
 * @param {string} url
 * @param {() => Promise<void>} close
 */
export function serveProbe(url, close) {
  const idleRSS = process.memoryUsage.rss();
  // The histogram records whole timer intervals; the delay is what exceeds the interval.
  const RESOLUTION_MS = 5;
  const lag = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  lag.enable();
  let cpu = process.cpuUsage();
  process.on('message', (m) => {
    if (m === 'start') {
      lag.reset();
      cpu = process.cpuUsage();
    } else if (m === 'stats') {
      const used = process.cpuUsage(cpu);
      /** @type {import('./probe-stats.js').ProbeStats} */
      const stats = {
        maxRSS: process.resourceUsage().maxRSS * 1024,
        idleRSS,
        lagP99: Math.max(0, lag.percentile(99) / 1e6 - RESOLUTION_MS),
        cpuMicros: used.user + used.system,
      };
      process.send?.(stats);
    } else if (m === 'stop') {
      void close().finally(() => process.exit(0));
    }
  });
  process.send?.({ url });
}
