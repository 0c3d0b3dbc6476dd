export { type Clock, ManualClock, systemClock } from './clock.js';
export { ConfigError, type ConfigIssue } from './config/config-error.js';
export type { DemoCredentials } from './config/demo.js';
export { loadConfigFile, parseConfigText } from './config/load.js';
export type { ServerConfig } from './config/validate.js';
export { SlidingLog } from './ratelimit/sliding-log.js';
export { type RunningServer, type StartServerOptions, startServer } from './server.js';
export { SqliteStore, type SqliteStoreOptions, type SynchronousLevel } from './store/sqlite-store.js';
export type * from './store/store.js';
