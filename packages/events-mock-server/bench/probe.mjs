// The measuring side of a bench child: the parent asks for figures over IPC, so the load generator's own
// event loop and CPU never count. `start` resets the window; `stats` answers the figures since `start`.
// Plain JavaScript, like the other children, so no transpiler adds its memory to the RSS figures.
// `stop` exits cleanly so a `--cpu-prof` profile (pnpm bench --profile) is written.
import { monitorEventLoopDelay } from 'node:perf_hooks';

/**
 * @param {string} url
 * @param {() => Promise<void>} close
 * @param {Record<string, unknown>} [info] sent with the url when ready (a reference's database or file)
 */
export function serveProbe(url, close, info = {}) {
  const idleRSS = process.memoryUsage.rss();
  // The histogram records whole timer intervals; the delay is what exceeds the interval.
  const RESOLUTION_MS = 5;
  const lag = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  lag.enable();
  let cpu = process.cpuUsage();
  // The window on the clock of V8's CPU profiles (CLOCK_MONOTONIC, µs), for bench/profile-split.ts.
  const nowUs = () => Number(process.hrtime.bigint() / 1000n);
  let startUs = nowUs();
  process.on('message', (m) => {
    if (m === 'start') {
      lag.reset();
      cpu = process.cpuUsage();
      startUs = nowUs();
    } else if (m === 'stats') {
      const used = process.cpuUsage(cpu);
      /** @type {import('./probe-stats.js').ProbeStats} */
      const stats = {
        maxRSS: process.resourceUsage().maxRSS * 1024,
        idleRSS,
        lagP99: Math.max(0, lag.percentile(99) / 1e6 - RESOLUTION_MS),
        cpuMicros: used.user + used.system,
        startUs,
        endUs: nowUs(),
      };
      process.send?.(stats);
    } else if (m === 'stop') {
      void close().finally(() => process.exit(0));
    }
  });
  process.send?.({ ...info, url });
}

/**
 * The probe of a node:cluster primary: relays `start`, `stats` and `stop` to every worker (each runs
 * serveProbe) and answers their figures together: RSS and CPU summed, the worst event-loop delay.
 * @param {import('node:cluster').Worker[]} workers
 */
export function serveClusterProbe(workers) {
  /** @type {(w: import('node:cluster').Worker) => Promise<any>} */
  const next = (w) => new Promise((resolve) => w.once('message', resolve));
  void Promise.all(workers.map(next)).then((ready) => {
    process.on('message', async (m) => {
      if (m === 'start') for (const w of workers) w.send('start');
      else if (m === 'stats') {
        const all = await Promise.all(
          workers.map((w) => {
            const reply = next(w);
            w.send('stats');
            return reply;
          }),
        );
        /** @type {import('./probe-stats.js').ProbeStats} */
        const stats = {
          maxRSS: all.reduce((n, s) => n + s.maxRSS, process.resourceUsage().maxRSS * 1024),
          idleRSS: all.reduce((n, s) => n + s.idleRSS, 0),
          lagP99: Math.max(...all.map((s) => s.lagP99)),
          cpuMicros: all.reduce((n, s) => n + s.cpuMicros, 0),
          startUs: Math.min(...all.map((s) => s.startUs)),
          endUs: Math.max(...all.map((s) => s.endUs)),
        };
        process.send?.(stats);
      } else if (m === 'stop') {
        await Promise.all(
          workers.map((w) => {
            const gone = new Promise((r) => w.once('exit', r));
            w.send('stop');
            return gone;
          }),
        );
        process.exit(0);
      }
    });
    process.send?.({ url: ready[0].url });
  });
}
