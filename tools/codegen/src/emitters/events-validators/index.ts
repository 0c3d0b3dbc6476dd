import type { Emitter } from '../../emit/emitter.js';
import { jsonSchemaFile } from './json-schema-file.js';
import { matchQualityFile } from './match-quality-file.js';
import { validatorModel } from './model.js';
import { normalizersFile } from './normalizers-file.js';
import { requestFile } from './request-file.js';
import { validatorsFile } from './validators-file.js';

const DIR = 'packages/events-validators/src/generated';

/**
 * @org/events-validators: straight-line validators per schema (C3, C4), the batch-body checks (C2), the
 * dedup key (C6), the normalizers (C5), the match-quality tables (C67) and the structural JSON Schema used
 * as a test oracle.
 */
export const eventsValidatorsEmitter: Emitter = {
  name: 'events-validators',
  owns: [DIR],
  emit(ir) {
    const m = validatorModel(ir);
    return [
      validatorsFile(DIR, m),
      requestFile(DIR, m),
      normalizersFile(DIR, m),
      jsonSchemaFile(DIR, m),
      matchQualityFile(DIR, m),
    ];
  },
};
