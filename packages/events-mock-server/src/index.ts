export { startServer, type StartServerOptions, type RunningServer } from './server.js';
export { ManualClock, systemClock, type Clock } from './clock.js';
export type { DemoCredentials } from './config/demo.js';
export { ConfigError, type ConfigIssue } from './config/config-error.js';
export type { ServerConfig } from './config/validate.js';
export { loadConfigFile, parseConfigText } from './config/load.js';
export { SqliteStore, type SqliteStoreOptions, type SynchronousLevel } from './store/sqlite-store.js';
export type * from './store/store.js';
export { SlidingLog } from './ratelimit/sliding-log.js';
