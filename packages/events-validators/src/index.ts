/**
 * @org/events-validators: every per-event rule of the Conversion Events API (C3-C6), generated from spec/
 * into straight-line code (src/generated) over a small runtime of rule kinds (src/lib), and the client-side
 * normalization and hashing helpers (C5), and the match quality of an event (C67).
 */
export {
  appendWarning,
  type BatchOptions,
  type BatchValidation,
  type EventValidation,
  replaceWarnings,
  validateBatch,
  validateEvent,
} from './lib/batch.js';
export type { ValidationContext } from './lib/context.js';
export {
  type HashedOnArrival,
  hashUserData,
  hashUserDataInPlace,
  normalize,
  sha256Hex,
} from './lib/hash.js';
export { readsAsContact } from './lib/json-type.js';
export { type MatchQuality, type MatchQualityIdentifier, matchQuality } from './lib/match-quality.js';
export {
  type EventProblems,
  formatMessage,
  formatTemplate,
  type MessageParams,
  type Problem,
  received,
} from './lib/problems.js';
export {
  dropsValue,
  namedAsPersonal,
  personalDataPaths,
  type RedactRoot,
  redactedText,
  redactJson,
  refusedPaths,
} from './lib/redact.js';
export type { RequestDetail, RequestFailure } from './lib/request.js';
