export { ConfigError, type ConfigIssue } from './config/config-error.js';
export type { DemoCredentials } from './config/demo.js';
export { loadConfigFile, parseConfigText } from './config/load.js';
export type { ServerConfig } from './config/validate.js';
export { type Clock, ManualClock, systemClock } from './core/clock.js';
export {
  type Collector,
  fullCollector,
  type HeapSettle,
  type HeapSettleOptions,
  settleHeapWhenIdle,
} from './core/heap-settle.js';
export {
  fixMmapThreshold,
  type MmapThresholdOutcome,
  mallocTrimmer,
  type Trimmer,
} from './core/native-memory.js';
export { SlidingLog } from './ratelimit/sliding-log.js';
export { type RunningServer, type StartServerOptions, startServer } from './server.js';
// The storage interface, part by part (issue 36): Store is their composition.
export type * from './store/interface/deletions.js';
export type * from './store/interface/directory.js';
export type * from './store/interface/directory-data.js';
export type * from './store/interface/events.js';
export { eventJsonOf } from './store/interface/events.js';
export type * from './store/interface/outbox.js';
export type * from './store/interface/request-log.js';
export type * from './store/interface/store.js';
export { SqliteStore, type SqliteStoreOptions, type SynchronousLevel } from './store/sqlite/sqlite-store.js';
export { ThreadedSqliteStore } from './store/threaded-store.js';
