export type * from './ir/types.js';
export { SpecError } from './load/spec-error.js';
export { loadSpec } from './load/load-spec.js';
export { buildIR, irStats, KIND_CODES } from './model/build-ir.js';
export { runGen, emitAll, type GenOptions, type GenResult } from './emit/run.js';
export { emitters } from './emitters/index.js';
export type { Emitter, EmittedFile } from './emit/emitter.js';
