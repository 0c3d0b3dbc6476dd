export type { EmittedFile, Emitter } from './emit/emitter.js';
export { emitAll, type GenOptions, type GenResult, runGen } from './emit/run.js';
export { emitters } from './emitters/index.js';
export type * from './ir/types.js';
export { loadSpec } from './load/load-spec.js';
export { SpecError } from './load/spec-error.js';
export { buildIR, irStats } from './model/build-ir.js';
export { KIND_CODES, RULE_KINDS } from './rules/index.js';
