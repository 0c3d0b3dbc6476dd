// Every diagnostic of src/load/diagnostics.ts fires on a small broken input, with its code, its file and the
// path or line it names. A code added to the table without a row here fails the first test.
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkCitations } from '../src/check/citations.js';
import { checkProseValues } from '../src/check/prose-values.js';
import { checkTraceability } from '../src/check/traceability.js';
import type { Emitter } from '../src/emit/emitter.js';
import { eventsClientEmitter } from '../src/emitters/events-client/index.js';
import { eventsDocsEmitter } from '../src/emitters/events-docs/index.js';
import { eventsMockServerEmitter } from '../src/emitters/events-mock-server/index.js';
import { eventsValidatorsEmitter } from '../src/emitters/events-validators/index.js';
import type { DecisionIR, IR, MessageIR, RuleIR, RuleKind, SchemaIR } from '../src/ir/types.js';
import { parseDecisionFile } from '../src/load/decisions.js';
import { DIAGNOSTICS, type DiagnosticCode, diagnosticMessage } from '../src/load/diagnostics.js';
import { type LoadedSpec, loadSpec, validateOpenApi } from '../src/load/load-spec.js';
import { parseYaml } from '../src/load/parse-yaml.js';
import { Reader } from '../src/load/reader.js';
import { SpecError } from '../src/load/spec-error.js';
import { buildIR } from '../src/model/build-ir.js';
import * as data from '../src/model/data.js';
import { readDecisions } from '../src/model/decisions.js';
import { readDeletionKeys } from '../src/model/deletion-keys.js';
import { readDifferences } from '../src/model/differences.js';
import { checkMessageKinds } from '../src/model/message-kinds.js';
import { buildOperations } from '../src/model/operations.js';
import { renderProse } from '../src/model/prose.js';
import { resolveOpenApi } from '../src/model/resolve.js';
import { buildSchemas } from '../src/model/schemas.js';
import { limitRef } from '../src/rules/context.js';
import { realSpecDir, tempTree } from './helpers.js';

const API = 'spec/openapi.yaml';
const at = (file: string, value: unknown) => new Reader(file, value);

const temps: string[] = [];
afterAll(async () => {
  await Promise.all(temps.map((t) => rm(t, { recursive: true, force: true })));
});
const tree = (files: Record<string, string>) => tempTree(files, temps);

function schemas(s: Record<string, unknown>) {
  return buildSchemas({
    file: API,
    doc: { components: { schemas: s } },
    limits: [],
    groups: {},
    actionSources: [],
    messageKinds: new Set(),
  });
}
const field = (f: Record<string, unknown>) => schemas({ O: { type: 'object', properties: { f } } });

const RECORD = (front: string, body = '## Decision\n\nD.\n\n## Reason\n\nR.\n') =>
  `---\n${front}\n---\n\n${body}`;
const FRONT = 'id: C1\ntitle: T\nstatus: accepted\ndate: 2026-01-01\nsource: s';
const decisions = (...texts: [string, string][]) =>
  readDecisions(texts.map(([file, text]) => parseDecisionFile(text, file)));
const D1 = 'spec/decisions/C1-a.md';

const difference = (row: Record<string, unknown>, known: string[]) =>
  readDifferences(
    at('spec/data/differences.yaml', {
      differences: [{ topic: 't', pinterest: 'p', service: 's', reason: 'r', evidence: 'e', ...row }],
    }),
    known.map((id) => ({ id }) as DecisionIR),
  );

const NAME = { tagName: null, purpose: 'p', usableFor: [] };
const eventNames = (v: Record<string, unknown>) =>
  data.readEventNames(at('spec/data/event-names.yaml', v), [], []);

const message = (m: Partial<MessageIR>): MessageIR => ({
  code: 'x',
  kind: 'k',
  severity: 'failed',
  template: 't',
  params: [],
  description: 'd',
  ...m,
});
/** The real message table, with one template replaced, added or (undefined) left out. */
let realMessages: MessageIR[] = [];
beforeAll(async () => {
  realMessages = data.readMessages(data.dataReader(await loadSpec(realSpecDir), 'messages'));
});
const messageKinds = (code: string, m: Partial<MessageIR> | undefined) => {
  const list = realMessages.filter((x) => x.code !== code);
  if (m) list.push(message({ code, ...m }));
  checkMessageKinds(at('spec/data/messages.yaml', {}), list);
};

/** The IR of the real spec, built once; each emitter row breaks a copy. */
let realIR: IR;
beforeAll(async () => {
  realIR = await buildIR(await loadSpec(realSpecDir));
});
/** normalization.yaml `deletionKeys` read against the real spec's schemas (C124). */
const deletionKeys = (keys: Record<string, string>) =>
  readDeletionKeys(
    at('spec/data/normalization.yaml', { deletionKeys: keys }).at('deletionKeys'),
    realIR.schemas,
    realIR.normalization.unhashed,
  );
type Edit = (ir: IR, schema: (name: string) => SchemaIR) => void;
/** An emitter run on a copy of the real IR with one edit. */
function emit(emitter: Emitter, edit: Edit) {
  const ir = structuredClone(realIR);
  edit(ir, (name) => ir.schemas.find((s) => s.name === name)!);
  return emitter.emit(ir);
}
/** The validators emitter run on a copy of the real IR with one edit. */
const validators = (edit: Edit) => emit(eventsValidatorsEmitter, edit);
const EVENTS = '/v5/ad_accounts/{ad_account_id}/events';
const eventsOp = (ir: IR) => ir.operations.find((o) => o.path === EVENTS && o.method === 'post')!;
/** The inline JSON schema of the 200 of POST /admin/delivery/requeue, in the IR's OpenAPI document. */
const requeueAnswer = (ir: IR) => {
  const paths = ir.openapi.paths as Record<string, Record<string, Record<string, unknown>>>;
  const responses = paths['/admin/delivery/requeue']!.post!.responses as Record<
    string,
    Record<string, unknown>
  >;
  const content = responses['200']!.content as Record<string, { schema: Record<string, unknown> }>;
  return content['application/json']!.schema;
};
/** Each request body content of the resolved OpenAPI document. */
const contents = (ir: IR) =>
  Object.values(
    ir.openapi.paths as Record<string, Record<string, { requestBody?: { content: Obj } }>>,
  ).flatMap((item) => Object.values(item).flatMap((op) => (op.requestBody ? [op.requestBody.content] : [])));
type Obj = Record<string, Record<string, unknown>>;
const fieldOf = (s: SchemaIR, name: string) => s.fields.find((f) => f.name === name)!;
/** The rule of a kind in a list (of an object or a field). */
const ruleIn = <K extends RuleKind>(rules: RuleIR[], kind: K) =>
  rules.find((r): r is Extract<RuleIR, { kind: K }> => r.kind === kind)!;
/** The object rule of a kind dropped from a schema. */
const withoutRule = (s: SchemaIR, kind: RuleKind) => {
  s.rules = s.rules.filter((r) => r.kind !== kind);
};
/** Rules of a kind dropped from every field of a schema. */
const dropRules = (s: SchemaIR, kind: string) => {
  for (const f of s.fields) f.rules = f.rules.filter((r) => r.kind !== kind);
};

const TABLE = (rows: string[]) =>
  `# Spec\n\n## Traceability\n\n| Seed | Statement | Code | Test |\n|---|---|---|---|\n${rows.join('\n')}\n`;

interface Row {
  code: DiagnosticCode;
  /** `file: path` the diagnostic names. */
  where: string;
  run(): unknown;
}

/** A spec of one OpenAPI document and no data files, for the prose templates and their check (C108). */
const prose = (openapi: Record<string, unknown>): LoadedSpec => ({
  dir: 'spec',
  openapiFile: API,
  openapi,
  data: {},
  decisions: [],
});
const LIMIT_K = {
  key: 'k',
  value: 172800,
  unit: 'seconds',
  description: 'A window.',
  overflow: 'fail',
} as unknown as IR['limits'][number];

const ROWS: Row[] = [
  // Reader
  { code: 'expected-string', where: 'f.yaml: a', run: () => at('f.yaml', { a: 1 }).at('a').string() },
  { code: 'expected-number', where: 'f.yaml: a', run: () => at('f.yaml', { a: 'x' }).at('a').number() },
  { code: 'expected-integer', where: 'f.yaml: a', run: () => at('f.yaml', { a: 1.5 }).at('a').integer() },
  { code: 'expected-boolean', where: 'f.yaml: a', run: () => at('f.yaml', { a: 1 }).at('a').boolean() },
  {
    code: 'expected-one-of',
    where: 'f.yaml: a',
    run: () => at('f.yaml', { a: 'z' }).at('a').oneOf(['x', 'y']),
  },
  { code: 'expected-list', where: 'f.yaml: a', run: () => at('f.yaml', { a: 1 }).at('a').array() },
  { code: 'expected-mapping', where: 'f.yaml: a', run: () => at('f.yaml', { a: [] }).at('a').object() },
  { code: 'invalid-regex', where: 'f.yaml: a', run: () => at('f.yaml', { a: '(' }).at('a').regex() },
  {
    code: 'empty-text',
    where: 'spec/data/differences.yaml: differences[0].topic',
    run: () => difference({ topic: ' ', decisions: ['C1'] }, ['C1']),
  },
  // Files
  {
    code: 'unreadable-file',
    where: 'spec/openapi.yaml: (root)',
    run: async () => loadSpec(join(await tree({ 'spec/README.md': '' }), 'spec')),
  },
  { code: 'yaml-syntax', where: 'f.yaml: line 1, column 5', run: () => parseYaml('a: [', 'f.yaml') },
  {
    code: 'x-data-not-mapping',
    where: 'spec/openapi.yaml: x-data',
    run: async () => loadSpec(join(await tree({ 'spec/openapi.yaml': 'openapi: 3.1.0\n' }), 'spec')),
  },
  {
    code: 'x-data-not-file-name',
    where: 'spec/openapi.yaml: x-data.limits',
    run: async () => loadSpec(join(await tree({ 'spec/openapi.yaml': 'x-data:\n  limits: 3\n' }), 'spec')),
  },
  {
    code: 'data-file-missing',
    where: 'spec/openapi.yaml: x-data.limits',
    run: () => data.dataReader({ openapiFile: API, data: {} } as unknown as LoadedSpec, 'limits'),
  },
  {
    code: 'openapi-invalid',
    where: 'spec/openapi.yaml: (root)',
    run: () => validateOpenApi(API, { openapi: '3.1.0' }),
  },
  {
    code: 'unresolved-ref',
    where: 'spec/openapi.yaml: paths./a.get.parameters[0].$ref',
    run: () =>
      buildOperations(API, {
        paths: { '/a': { get: { operationId: 'a', parameters: [{ $ref: '#/components/parameters/p' }] } } },
      }),
  },
  // Decision records
  { code: 'front-matter-open', where: `${D1}: line 1`, run: () => parseDecisionFile('# C1', D1) },
  { code: 'front-matter-close', where: `${D1}: line 1`, run: () => parseDecisionFile('---\nid: C1\n', D1) },
  {
    code: 'decision-section-unknown',
    where: `${D1}: ## Notes`,
    run: () => decisions([D1, RECORD(FRONT, '## Notes\n\nN.\n')]),
  },
  {
    code: 'decision-section-twice',
    where: `${D1}: ## Decision`,
    run: () => decisions([D1, RECORD(FRONT, '## Decision\n\nD.\n\n## Decision\n\nD.\n')]),
  },
  {
    code: 'decision-text-before-section',
    where: `${D1}: (body)`,
    run: () => decisions([D1, RECORD(FRONT, 'Text.\n\n## Decision\n\nD.\n\n## Reason\n\nR.\n')]),
  },
  {
    code: 'decision-section-missing',
    where: `${D1}: ## Reason`,
    run: () => decisions([D1, RECORD(FRONT, '## Decision\n\nD.\n')]),
  },
  {
    code: 'decision-field-unknown',
    where: `${D1}: owner`,
    run: () => decisions([D1, RECORD(`${FRONT}\nowner: x`)]),
  },
  {
    code: 'decision-id-format',
    where: 'spec/decisions/D1-a.md: id',
    run: () => decisions(['spec/decisions/D1-a.md', RECORD(FRONT.replace('C1', 'D1'))]),
  },
  {
    code: 'decision-file-name',
    where: 'spec/decisions/C2-a.md: id',
    run: () => decisions(['spec/decisions/C2-a.md', RECORD(FRONT)]),
  },
  {
    code: 'decision-date-format',
    where: `${D1}: date`,
    run: () => decisions([D1, RECORD(FRONT.replace('2026-01-01', '1 Jan 2026'))]),
  },
  {
    code: 'superseded-without-replacement',
    where: `${D1}: supersededBy`,
    run: () => decisions([D1, RECORD(FRONT.replace('accepted', 'superseded'))]),
  },
  {
    code: 'replacement-not-superseded',
    where: `${D1}: supersededBy`,
    run: () => decisions([D1, RECORD(`${FRONT}\nsupersededBy: C2`)]),
  },
  {
    code: 'decision-id-twice',
    where: 'spec/decisions/C1-b.md: id',
    run: () => decisions([D1, RECORD(FRONT)], ['spec/decisions/C1-b.md', RECORD(FRONT)]),
  },
  {
    code: 'superseded-by-itself',
    where: `${D1}: supersededBy`,
    run: () => decisions([D1, RECORD(`${FRONT.replace('accepted', 'superseded')}\nsupersededBy: C1`)]),
  },
  {
    code: 'unknown-decision',
    where: 'spec/data/differences.yaml: differences[0].decisions[0]',
    run: () => difference({ decisions: ['C1'] }, []),
  },
  {
    code: 'difference-without-decision',
    where: 'spec/data/differences.yaml: differences[0].decisions',
    run: () => difference({ decisions: [] }, []),
  },
  // Data files
  {
    code: 'limit-key-case',
    where: 'spec/data/limits.yaml: limits.MaxLength',
    run: () => data.readLimits(at('spec/data/limits.yaml', { limits: { MaxLength: {} } })),
  },
  {
    code: 'unknown-limit',
    where: 'spec/data/event-names.yaml: custom.maxLengthLimit',
    run: () =>
      limitRef(
        [],
        at('spec/data/event-names.yaml', { custom: { maxLengthLimit: 'nope' } })
          .at('custom')
          .at('maxLengthLimit'),
      ),
  },
  {
    code: 'unknown-limit-format',
    where: 'spec/openapi.yaml: info.description',
    run: () => renderProse(prose({ info: { description: 'At most {limit:k|fancy}.' } }), [LIMIT_K]),
  },
  {
    code: 'duration-of-non-time',
    where: 'spec/openapi.yaml: info.description',
    run: () =>
      renderProse(prose({ info: { description: 'At most {limit:k|duration}.' } }), [
        { ...LIMIT_K, unit: 'count' },
      ]),
  },
  {
    code: 'limit-value-in-prose',
    where: 'spec/openapi.yaml: info.description',
    run: () =>
      checkProseValues(prose({ info: { description: 'Kept for 48 hours.' } }), {
        limits: [LIMIT_K],
        operations: [],
        requestErrors: [],
      } as unknown as Parameters<typeof checkProseValues>[1]),
  },
  {
    code: 'event-name-case',
    where: 'spec/data/event-names.yaml: standard[0].name',
    run: () => eventNames({ standard: [{ name: 'Checkout', ...NAME }] }),
  },
  {
    code: 'event-name-twice',
    where: 'spec/data/event-names.yaml: standard[1]',
    run: () =>
      eventNames({
        standard: [
          { name: 'lead', ...NAME },
          { name: 'lead', ...NAME },
        ],
      }),
  },
  {
    code: 'not-standard-event-name',
    where: 'spec/data/event-names.yaml: groups.g[0]',
    run: () => eventNames({ standard: [{ name: 'lead', ...NAME }], groups: { g: ['signup'] } }),
  },
  {
    code: 'unknown-event-group',
    where: `${API}: components.schemas.O.properties.f.x-recommended.eventNames`,
    run: () => field({ type: 'string', 'x-recommended': { eventNames: 'gifts' } }),
  },
  {
    code: 'rate-window-not-positive',
    where: 'spec/data/rate-limits.yaml: universal.trial',
    run: () =>
      data.readRateLimits(
        at('spec/data/rate-limits.yaml', {
          universal: { description: 'd', trial: { limit: 0, window: 1, per: [] } },
        }),
      ),
  },
  {
    code: 'template-brackets',
    where: 'm.yaml: (root)',
    run: () => data.templateParams(at('m.yaml', 'a [[b')),
  },
  {
    code: 'template-parameter',
    where: 'm.yaml: (root)',
    run: () => data.templateParams(at('m.yaml', 'a {b c}')),
  },
  {
    code: 'template-parameter-missing',
    where: 'spec/data/messages.yaml: join.overflow',
    run: () =>
      data.readMessageJoin(at('spec/data/messages.yaml', { join: { separator: '; ', overflow: 'more' } })),
  },
  {
    code: 'message-code-case',
    where: 'spec/data/messages.yaml: messages.BadCode',
    run: () => data.readMessages(at('spec/data/messages.yaml', { messages: { BadCode: {} } })),
  },
  {
    code: 'drops-not-warning',
    where: 'spec/data/messages.yaml: messages.x.drops',
    run: () =>
      data.readMessages(
        at('spec/data/messages.yaml', {
          messages: { x: { kind: 'k', severity: 'failed', template: 't', description: 'd', drops: true } },
        }),
      ),
  },
  {
    code: 'unknown-shape',
    where: 'spec/data/messages.yaml: shapes.blob',
    run: () => data.readValueShapes(at('spec/data/messages.yaml', { shapes: { blob: 'a blob' } })),
  },
  {
    code: 'shape-missing',
    where: 'spec/data/messages.yaml: shapes',
    run: () => data.readValueShapes(at('spec/data/messages.yaml', { shapes: {} })),
  },
  {
    code: 'unknown-request-error',
    where: 'spec/data/request-errors.yaml: problems.p.error',
    run: () =>
      data.readRequestErrors(
        at('spec/data/request-errors.yaml', { errors: [], problems: { p: { error: 'nope' } } }),
      ),
  },
  {
    code: 'code-format',
    where: 'spec/data/currencies.yaml: currencies[0].code',
    run: () =>
      data.readCodeList(
        at('spec/data/currencies.yaml', { currencies: [{ code: 'usd' }] }),
        'currencies',
        true,
      ),
  },
  {
    code: 'code-twice',
    where: 'spec/data/currencies.yaml: currencies[1].code',
    run: () =>
      data.readCodeList(
        at('spec/data/currencies.yaml', {
          currencies: [
            { code: 'USD', name: 'D' },
            { code: 'USD', name: 'D' },
          ],
        }),
        'currencies',
        true,
      ),
  },
  {
    code: 'region-code-format',
    where: 'spec/data/regions.yaml: regions[0].code',
    run: () => data.readNamedCodes(at('spec/data/regions.yaml', { regions: [{ code: 'CAL' }] }), 'regions'),
  },
  // Message codes against rule kinds
  {
    code: 'message-template-missing',
    where: 'spec/data/messages.yaml: messages',
    run: () => messageKinds('invalid_url', undefined),
  },
  {
    code: 'message-kind-mismatch',
    where: 'spec/data/messages.yaml: messages.invalid_url.kind',
    run: () => messageKinds('invalid_url', { kind: 'pattern' }),
  },
  {
    code: 'message-code-unused',
    where: 'spec/data/messages.yaml: messages.telepathy_failed',
    run: () => messageKinds('telepathy_failed', { kind: 'url' }),
  },
  {
    code: 'message-reasons-mismatch',
    where: 'spec/data/messages.yaml: messages.invalid_url.reasons',
    run: () =>
      messageKinds('invalid_url', { kind: 'url', reasons: [{ key: 'odd', template: 't', params: [] }] }),
  },
  // Schemas and extensions
  {
    code: 'x-limits-keyword',
    where: `${API}: components.x-limits.pattern`,
    run: () => resolveOpenApi(API, { components: { 'x-limits': { pattern: 'k' } } }, [], {}),
  },
  {
    code: 'x-limits-twice',
    where: `${API}: components.x-limits.maxLength`,
    run: () => resolveOpenApi(API, { components: { maxLength: 3, 'x-limits': { maxLength: 'k' } } }, [], {}),
  },
  {
    code: 'unknown-enum-source',
    where: `${API}: components.x-enum-from`,
    run: () => resolveOpenApi(API, { components: { 'x-enum-from': 'colours' } }, [], {}),
  },
  {
    code: 'unknown-schema',
    where: `${API}: components.schemas.O.properties.f.$ref`,
    run: () => field({ $ref: '#/components/schemas/Gone' }),
  },
  {
    code: 'one-of-unsupported',
    where: `${API}: components.schemas.O.properties.f.oneOf`,
    run: () => field({ oneOf: [{ type: 'string' }, { type: 'integer' }] }),
  },
  {
    code: 'type-union',
    where: `${API}: components.schemas.O.properties.f.type`,
    run: () => field({ type: ['string', 'integer'] }),
  },
  {
    code: 'type-unsupported',
    where: `${API}: components.schemas.O.properties.f`,
    run: () => field({ type: 'object' }),
  },
  {
    code: 'unknown-rule-kind',
    where: `${API}: components.schemas.O.properties.f.x-rules[0].kind`,
    run: () => field({ type: 'string', 'x-rules': [{ kind: 'telepathy' }] }),
  },
  {
    code: 'unknown-rule-parameter',
    where: `${API}: components.schemas.O.properties.f.x-rules[0].scheme`,
    run: () => field({ type: 'string', 'x-rules': [{ kind: 'url', scheme: 'x' }] }),
  },
  {
    code: 'rule-kind-misplaced',
    where: `${API}: components.schemas.O.properties.f.items.x-rules[0].kind`,
    run: () =>
      field({ type: 'array', items: { type: 'string', 'x-rules': [{ kind: 'url', schemes: ['https'] }] } }),
  },
  {
    code: 'required-not-property',
    where: `${API}: components.schemas.O.required`,
    run: () => schemas({ O: { type: 'object', required: ['g'], properties: { f: { type: 'string' } } } }),
  },
  {
    code: 'dedup-key-not-item-property',
    where: `${API}: components.schemas.O.x-dedup.key[0]`,
    run: () =>
      schemas({ O: { type: 'object', properties: { f: { type: 'string' } }, 'x-dedup': { key: ['id'] } } }),
  },
  {
    code: 'rule-field-unknown',
    where: `${API}: components.schemas.O.x-rules`,
    run: () =>
      schemas({
        O: {
          type: 'object',
          properties: { f: { type: 'string' } },
          'x-rules': [{ kind: 'require-any-of', alternatives: [['zz']] }],
        },
      }),
  },
  {
    code: 'header-name-mismatch',
    where: `${API}: components.responses.R.headers.Retry`,
    run: () =>
      resolveOpenApi(
        API,
        {
          components: {
            headers: { H: { 'x-name': 'Retry-After', schema: { type: 'integer' } } },
            responses: { R: { description: 'r', headers: { Retry: { $ref: '#/components/headers/H' } } } },
          },
        },
        [],
        {},
      ),
  },
  // What the validators emitter needs of the schemas
  {
    code: 'min-items-per-event',
    where: `${API}: components.schemas.CustomData.properties.content_ids.minItems`,
    run: () =>
      validators((_, s) => {
        ruleIn(fieldOf(s('CustomData'), 'content_ids').rules, 'bounds').minItems = 1;
      }),
  },
  {
    code: 'min-length-unsupported',
    where: `${API}: components.schemas.ConversionEvent.properties.event_id.minLength`,
    run: () =>
      validators((_, s) => {
        ruleIn(fieldOf(s('ConversionEvent'), 'event_id').rules, 'bounds').minLength = 2;
      }),
  },
  {
    code: 'agrees-with-not-object',
    where: `${API}: components.schemas.ConversionEvent.x-rules`,
    run: () =>
      validators((_, s) => {
        ruleIn(s('ConversionEvent').rules, 'agrees-with').in = 'event_id';
      }),
  },
  {
    code: 'agrees-with-no-field',
    where: `${API}: components.schemas.ConversionEvent.x-rules`,
    run: () =>
      validators((_, s) => {
        ruleIn(s('ConversionEvent').rules, 'agrees-with').field = 'nothing';
      }),
  },
  {
    code: 'event-name-field-missing',
    where: `${API}: components.schemas.ConversionEvent.x-rules`,
    run: () =>
      validators((_, s) => {
        withoutRule(s('ConversionEvent'), 'recommended-fields');
        dropRules(s('ConversionEvent'), 'event-name');
      }),
  },
  {
    code: 'too-many-fields',
    where: `${API}: components.schemas.AppInfo`,
    run: () =>
      validators((_, s) => {
        const app = s('AppInfo');
        const f = app.fields[0]!;
        for (let k = app.fields.length; k < 32; k++) app.fields.push({ ...f, name: `extra_${k}` });
      }),
  },
  {
    code: 'too-many-recommended',
    where: `${API}: components.schemas.ConversionEvent`,
    run: () =>
      validators((_, s) => {
        for (const name of ['ConversionEvent', 'UserData', 'CustomData'])
          for (const f of s(name).fields)
            f.recommended ??= { actionSources: 'all', eventNames: null, weight: 1 };
      }),
  },
  {
    code: 'action-source-field',
    where: `${API}: components.schemas.ConversionEvent`,
    run: () => validators((_, s) => dropRules(s('ConversionEvent'), 'enum')),
  },
  {
    code: 'recommended-in-items',
    where: `${API}: components.schemas.CustomData.properties.contents`,
    run: () =>
      validators((_, s) => {
        fieldOf(s('ContentItem'), 'id').recommended = { actionSources: 'all', eventNames: null, weight: 1 };
      }),
  },
  {
    code: 'unknown-keys-allowed',
    where: `${API}: components.schemas.AppInfo`,
    run: () =>
      validators((_, s) => {
        s('AppInfo').unknownKeys = 'allow';
      }),
  },
  {
    code: 'unknown-keys-request',
    where: `${API}: components.schemas.AppInfo.x-unknown-keys`,
    run: () =>
      validators((_, s) => {
        s('AppInfo').unknownKeys = 'request';
      }),
  },
  {
    code: 'batch-request-count',
    where: `${API}: components.schemas`,
    run: () => validators((_, s) => withoutRule(s('ConversionEventsRequest'), 'dedup')),
  },
  {
    code: 'batch-events-field',
    where: `${API}: components.schemas.ConversionEventsRequest`,
    run: () =>
      validators((_, s) => {
        const req = s('ConversionEventsRequest');
        req.fields = req.fields.filter((f) => f.name !== 'data');
      }),
  },
  {
    code: 'event-time-field',
    where: `${API}: components.schemas.ConversionEvent`,
    run: () => validators((_, s) => dropRules(s('ConversionEvent'), 'unix-seconds')),
  },
  {
    code: 'dedup-key-not-string',
    where: `${API}: components.schemas.ConversionEventsRequest.x-dedup.key`,
    run: () =>
      validators((_, s) => {
        ruleIn(s('ConversionEventsRequest').rules, 'dedup').key = ['event_time'];
      }),
  },
  {
    code: 'request-problem-missing',
    where: 'spec/data/request-errors.yaml: problems',
    run: () =>
      validators((ir) => {
        ir.requestProblems = [];
      }),
  },
  {
    code: 'normalization-step-runtime',
    where: 'spec/data/normalization.yaml: kinds.email',
    run: () =>
      validators((ir) => {
        ir.normalization.kinds.find((k) => k.name === 'email')!.steps.push('telepathy');
      }),
  },
  {
    code: 'normalize-kind-unknown',
    where: `${API}: components.schemas.UserData.properties.em.x-normalize`,
    run: () =>
      validators((_, s) => {
        fieldOf(s('UserData'), 'em').normalize = 'emails';
      }),
  },
  {
    code: 'identifier-holder',
    where: `${API}: components.schemas.ConversionEvent`,
    run: () =>
      validators((ir) => {
        for (const x of ir.schemas) for (const f of x.fields) delete f.normalize;
      }),
  },
  {
    code: 'deletion-target-unknown',
    where: 'spec/data/normalization.yaml: deletionKeys.phones',
    run: () => deletionKeys({ user_emails: 'em', epiks: 'click_id', phones: 'ph' }),
  },
  {
    code: 'deletion-target-unmatched',
    where: 'spec/data/normalization.yaml: deletionKeys',
    run: () => deletionKeys({ user_emails: 'em' }),
  },
  {
    code: 'deletion-key-not-identifier',
    where: 'spec/data/normalization.yaml: deletionKeys.epiks',
    run: () => deletionKeys({ user_emails: 'em', epiks: 'customer_type' }),
  },
  // What the server, docs and client emitters need of the spec
  {
    code: 'rate-limit-header-unknown',
    where: 'spec/data/rate-limits.yaml: headers',
    run: () =>
      emit(eventsMockServerEmitter, (ir) => {
        ir.rateLimits.headers.limit = 'X-Nope';
      }),
  },
  {
    code: 'request-content-types',
    where: `${API}: paths`,
    run: () =>
      emit(eventsMockServerEmitter, (ir) => {
        contents(ir)[0]!['text/plain'] = {};
      }),
  },
  {
    code: 'demo-example-count',
    where: `${API}: paths`,
    run: () =>
      emit(eventsMockServerEmitter, (ir) => {
        for (const c of contents(ir))
          for (const t of Object.values(c))
            for (const e of Object.values((t.examples ?? {}) as Obj)) delete e['x-demo'];
      }),
  },
  {
    code: 'client-request-id-pattern',
    where: `${API}: components.headers.RequestId`,
    run: () =>
      emit(eventsMockServerEmitter, (ir) => {
        const headers = (ir.openapi.components as Obj).headers as Record<string, Record<string, unknown>>;
        headers.RequestId!['x-client-pattern'] = '[A-Za-z0-9]+';
      }),
  },
  {
    code: 'path-parameter-max-length',
    where: `${API}: paths.${EVENTS}.post.parameters`,
    run: () =>
      emit(eventsMockServerEmitter, (ir) => {
        for (const p of eventsOp(ir).parameters) if (p.in === 'path') delete p.maxLength;
      }),
  },
  {
    code: 'exclusive-maximum-number',
    where: `${API}: components.schemas`,
    run: () =>
      emit(eventsMockServerEmitter, (_, s) => {
        ruleIn(fieldOf(s('FaultSpec'), 'fraction').rules, 'bounds').exclusiveMaximum = 1;
      }),
  },
  {
    code: 'alias-of-unknown',
    where: `${API}: paths.${EVENTS}.post.parameters`,
    run: () =>
      emit(eventsMockServerEmitter, (ir) => {
        for (const p of eventsOp(ir).parameters) if (p.aliasOf) p.aliasOf = 'nope';
      }),
  },
  {
    code: 'events-operation-count',
    where: `${API}: paths`,
    run: () =>
      emit(eventsDocsEmitter, (ir) => {
        eventsOp(ir).testMode = false;
      }),
  },
  {
    code: 'needed-by-emitter',
    where: 'spec/data/limits.yaml: limits',
    run: () =>
      emit(eventsClientEmitter, (ir) => {
        ir.limits = ir.limits.filter((l) => l.key !== 'batch_max_events');
      }),
  },
  {
    code: 'security-schemes',
    where: `${API}: components.securitySchemes`,
    run: () =>
      emit(eventsDocsEmitter, (ir) => {
        ir.securitySchemes = ir.securitySchemes.filter((x) => x.parameter?.in !== 'cookie');
      }),
  },
  {
    code: 'worked-example-invalid',
    where: 'spec/data/normalization.yaml: dateFormats',
    run: () =>
      emit(eventsDocsEmitter, (ir) => {
        ir.normalization.dateFormats = [];
      }),
  },
  {
    code: 'worked-example-step',
    where: 'spec/data/normalization.yaml: kinds',
    run: () =>
      emit(eventsDocsEmitter, (ir) => {
        ir.normalization.kinds.find((k) => k.name === 'email')!.steps.push('telepathy');
      }),
  },
  {
    code: 'worked-example-missing',
    where: 'spec/data/normalization.yaml: kinds.postcode',
    run: () =>
      emit(eventsDocsEmitter, (ir, s) => {
        ir.normalization.kinds.find((k) => k.name === 'zip')!.name = 'postcode';
        fieldOf(s('UserData'), 'zp').normalize = 'postcode';
      }),
  },
  {
    code: 'retry-after-header',
    where: `${API}: components.headers`,
    run: () =>
      emit(eventsClientEmitter, (ir) => {
        ir.rateLimits.headers.retryAfter = 'X-Nope';
      }),
  },
  {
    code: 'success-response-count',
    where: `${API}: paths.${EVENTS}.post.responses`,
    run: () =>
      emit(eventsClientEmitter, (ir) => {
        eventsOp(ir).responses.push({ status: '201', description: 'Created' });
      }),
  },
  {
    code: 'inline-answer-not-object',
    where: `${API}: paths./admin/delivery/requeue.post.responses`,
    run: () =>
      emit(eventsClientEmitter, (ir) => {
        requeueAnswer(ir).type = 'array';
      }),
  },
  {
    code: 'inline-answer-member-not-primitive',
    where: `${API}: paths./admin/delivery/requeue.post.responses`,
    run: () =>
      emit(eventsClientEmitter, (ir) => {
        (requeueAnswer(ir).properties as Record<string, unknown>).requeued = { type: 'object' };
      }),
  },
  // Repository checks
  {
    code: 'citation-unknown',
    where: 'packages/a/src/x.ts: line 2',
    run: async () =>
      checkCitations(await tree({ 'packages/a/src/x.ts': `// C1\n// ${`C${99}`}\n` }), {
        decisions: [{ id: 'C1' }],
      } as unknown as IR),
  },
  {
    code: 'traceability-table',
    where: 'spec/README.md: Traceability',
    run: async () => checkTraceability(await tree({ 'spec/README.md': '# No table\n' })),
  },
  {
    code: 'traceability-path-missing',
    where: 'spec/README.md: Traceability',
    run: async () =>
      checkTraceability(
        await tree({ 'spec/README.md': TABLE(['| 1 | a | `src/gone.ts` | `test/gone.test.ts` |']) }),
      ),
  },
];

async function diagnosticOf(run: () => unknown): Promise<SpecError> {
  try {
    await run();
  } catch (e) {
    if (e instanceof SpecError) return e;
    throw e;
  }
  throw new Error('expected a SpecError');
}

describe('generator diagnostics', () => {
  it('every code of the table has a row here, and no row names another', () => {
    expect(ROWS.map((r) => r.code).sort()).toEqual(Object.keys(DIAGNOSTICS).sort());
  });

  it.each(ROWS)('$code', async (row) => {
    const e = await diagnosticOf(row.run);
    expect(e.code).toBe(row.code);
    expect(`${e.file}: ${e.path || '(root)'}`).toBe(row.where);
    expect(e.message).toBe(`${row.where}: ${e.problem} [${row.code}]`);
  });

  it('the README lists every code with its message', async () => {
    const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
    const section = readme.slice(readme.indexOf('## Diagnostics'), readme.indexOf('## Tests'));
    const listed = [...section.matchAll(/^\| `([a-z0-9-]+)` \| (.*) \|$/gm)].map((m) => [m[1], m[2]]);
    expect(Object.fromEntries(listed)).toEqual(DIAGNOSTICS);
  });

  it('fills a template: bare names are parameters, other braces are text', () => {
    expect(
      diagnosticMessage('template-parameter-missing', { what: 'the overflow text', param: '{count}' }),
    ).toBe('the overflow text needs a {count} parameter');
    expect(diagnosticMessage('one-of-unsupported')).toBe('only oneOf [X, {type: null}] is supported');
    expect(new SpecError('f.yaml', 'a', 'unknown-rule-kind', { kind: 'x' }).message).toBe(
      'f.yaml: a: unknown rule kind "x" [unknown-rule-kind]',
    );
  });
});
