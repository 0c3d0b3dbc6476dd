import type { IR, RuleKind } from '../ir/types.js';
import { type LoadedSpec, validateOpenApi } from '../load/load-spec.js';
import { Reader } from '../load/reader.js';
import {
  dataReader,
  readCodeList,
  readEventNames,
  readLimits,
  readMessageJoin,
  readMessages,
  readNamedCodes,
  readNormalization,
  readRateLimits,
  readRequestErrors,
  readValueShapes,
} from './data.js';
import { readDecisions } from './decisions.js';
import { readDifferences } from './differences.js';
import { buildOperations, buildSecuritySchemes } from './operations.js';
import { renderProse } from './prose.js';
import { resolveOpenApi } from './resolve.js';
import { buildSchemas } from './schemas.js';

/**
 * Kinds that no field rule names: `integer-exact` is part of the JSON type check of integer fields (C38);
 * `json-text` is found by the server in the request bytes (C35). Their codes are documented with every
 * message, not listed per field.
 */
type TextKind = 'integer-exact' | 'json-text';

/** The message codes each rule kind may emit; gen fails when one lacks a template in messages.yaml. */
export const KIND_CODES: Record<RuleKind | TextKind, string[]> = {
  required: ['missing_required'],
  type: ['invalid_type'],
  'integer-exact': ['integer_not_exact'],
  'json-text': ['member_repeated'],
  enum: ['invalid_enum'],
  bounds: [
    'empty_string',
    'string_too_long',
    'string_too_long_dropped',
    'too_many_items',
    'integer_out_of_range',
  ],
  pattern: ['pattern_mismatch', 'pattern_mismatch_dropped'],
  'event-name': ['invalid_event_name'],
  'unix-seconds': ['event_time_milliseconds', 'event_time_too_old', 'event_time_in_future'],
  url: ['invalid_url'],
  'code-list': ['invalid_code', 'invalid_code_dropped'],
  'ip-address': ['invalid_ip_dropped'],
  'user-agent': ['invalid_user_agent_dropped'],
  'sha256-hex': ['hash_dropped'],
  'decimal-string': ['invalid_decimal', 'decimal_too_small', 'decimal_too_large'],
  'unknown-keys': ['unknown_field', 'unknown_field_dropped'],
  'require-any-of': ['missing_identifier'],
  'default-from-context': ['currency_defaulted'],
  'ids-in-items': ['content_id_not_in_contents'],
  'agrees-with': ['disagreeing_field_dropped'],
  'positive-for-events': ['zero_value_on_event'],
  'recommended-fields': ['recommended_missing'],
  dedup: ['duplicate_event'],
};

/** Loaded spec -> IR. Validates the OpenAPI document and every cross-reference between spec files. */
export async function buildIR(loaded: LoadedSpec): Promise<IR> {
  // C108: the prose templates become text before anything reads the spec.
  const spec = renderProse(loaded, readLimits(dataReader(loaded, 'limits')));
  const file = spec.openapiFile;
  const limits = readLimits(dataReader(spec, 'limits'));
  const raw = new Reader(file, spec.openapi);
  const usages = raw.at('components').at('schemas').at('EventUsage').at('enum').strings();
  const eventNames = readEventNames(dataReader(spec, 'eventNames'), limits, usages);
  const openapi = resolveOpenApi(file, spec.openapi, limits, {
    eventNames: eventNames.standard.map((e) => e.name),
  });
  await validateOpenApi(file, openapi);

  const messages = readMessages(dataReader(spec, 'messages'));
  const msgFile = dataReader(spec, 'messages');
  for (const [kind, codes] of Object.entries(KIND_CODES))
    for (const code of codes) {
      const m = messages.find((x) => x.code === code);
      if (!m)
        return msgFile.at('messages').fail(`no template for code "${code}", which rule kind ${kind} emits`);
      if (m.kind !== kind)
        msgFile.at('messages').at(code).at('kind').fail(`code "${code}" is emitted by kind ${kind}`);
    }
  for (const m of messages)
    if (!KIND_CODES[m.kind as RuleKind | TextKind]?.includes(m.code))
      msgFile.at('messages').at(m.code).fail(`no rule kind emits "${m.code}" (kind ${m.kind})`);
  for (const m of messages) {
    const want = CODE_REASONS[m.code] ?? [];
    const have = (m.reasons ?? []).map((x) => x.key);
    if (want.join() !== have.join())
      msgFile
        .at('messages')
        .at(m.code)
        .at('reasons')
        .fail(
          `rule kind ${m.kind} tells apart ${want.length ? want.join(', ') : 'no reasons'}; found ${have.join(', ') || 'none'}`,
        );
  }

  const actionSources = raw.at('components').at('schemas').at('ActionSource').at('enum').strings();
  const { schemas, enums } = buildSchemas({
    file,
    doc: openapi,
    limits,
    groups: eventNames.groups,
    actionSources,
    messageKinds: new Set(messages.map((m) => m.kind)),
  });
  const { errors, problems } = readRequestErrors(dataReader(spec, 'requestErrors'));
  const decisions = readDecisions(spec.decisions);
  const info = raw.at('info');
  return {
    info: {
      title: info.at('title').string(),
      version: info.at('version').string(),
      summary: info.at('summary').optString() ?? '',
      description: info.at('description').optString() ?? '',
    },
    schemas,
    enums,
    operations: buildOperations(file, openapi),
    securitySchemes: buildSecuritySchemes(file, openapi),
    eventNames,
    limits,
    rateLimits: readRateLimits(dataReader(spec, 'rateLimits')),
    messages,
    messageJoin: readMessageJoin(msgFile),
    valueShapes: readValueShapes(msgFile),
    requestErrors: errors,
    requestProblems: problems,
    codeLists: {
      currencies: readCodeList(dataReader(spec, 'currencies'), 'currencies', true),
      languages: readCodeList(dataReader(spec, 'languages'), 'languages', false),
      countries: readNamedCodes(dataReader(spec, 'countries'), 'countries'),
      regions: readNamedCodes(dataReader(spec, 'regions'), 'regions'),
    },
    normalization: readNormalization(dataReader(spec, 'normalization')),
    decisions,
    differences: readDifferences(dataReader(spec, 'differences'), decisions),
    openapi,
  };
}

/** The `{reason}` cases each code's rule kind tells apart; gen fails when messages.yaml lacks a text for one. */
export const CODE_REASONS: Record<string, string[]> = {
  invalid_ip_dropped: ['all_zeros', 'invalid', 'user_agent'],
  invalid_user_agent_dropped: [
    'bot',
    'empty',
    'few_system_items',
    'ip_address',
    'no_browser',
    'no_product_token',
    'placeholder',
  ],
};

/** Counts for the gen summary and the closing note. */
export function irStats(ir: IR) {
  const fields = ir.schemas.reduce((n, s) => n + s.fields.length, 0);
  const rules = ir.schemas.reduce(
    (n, s) => n + s.rules.length + s.fields.reduce((m, f) => m + f.rules.length + f.itemRules.length, 0),
    0,
  );
  return {
    schemas: ir.schemas.length,
    fields,
    enums: ir.enums.length,
    limits: ir.limits.length,
    rules,
    messages: ir.messages.length,
    operations: ir.operations.length,
    decisions: ir.decisions.length,
  };
}
