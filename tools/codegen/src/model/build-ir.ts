import type { IR } from '../ir/types.js';
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
import { readDeletionKeys } from './deletion-keys.js';
import { readDifferences } from './differences.js';
import { checkMessageKinds } from './message-kinds.js';
import { buildOperations, buildSecuritySchemes } from './operations.js';
import { renderProse } from './prose.js';
import { resolveOpenApi } from './resolve.js';
import { buildSchemas } from './schemas.js';

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
  checkMessageKinds(msgFile, messages);

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
  const normalization = readNormalization(dataReader(spec, 'normalization'));
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
    normalization,
    deletionKeys: readDeletionKeys(
      dataReader(spec, 'normalization').at('deletionKeys'),
      schemas,
      normalization.unhashed,
    ),
    decisions,
    differences: readDifferences(dataReader(spec, 'differences'), decisions),
    openapi,
    files: {
      openapi: file,
      data: Object.fromEntries(Object.entries(spec.data).map(([k, d]) => [k, d.file])),
    },
  };
}

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
