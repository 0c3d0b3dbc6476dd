// One scenario per extension, rule kind or data file: a single edit to a copy of spec/, and a file snapshot of
// what that edit changes in the emitted files (a unified diff against the unedited spec's output). The
// snapshots show, reviewably, what each extension produces; the committed output of the real spec is guarded
// by `pnpm gen --check`, not mirrored here. Refresh after an intended emitter change:
// pnpm --filter @org/codegen exec vitest run test/scenarios.test.ts -u
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createTwoFilesPatch } from 'diff';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { EmittedFile } from '../src/emit/emitter.js';
import { emitAll } from '../src/emit/run.js';
import { emitters } from '../src/emitters/index.js';
import { loadSpec } from '../src/load/load-spec.js';
import { buildIR } from '../src/model/build-ir.js';
import { copySpec, editYaml, realSpecDir } from './helpers.js';

type Doc = Record<string, unknown>;
type Obj = Record<string, Record<string, unknown>>;

/** `components.schemas.<schema>.properties.<field>` of a parsed openapi.yaml. */
function field(doc: Doc, schema: string, name: string): Record<string, unknown> {
  const schemas = (doc.components as Obj).schemas as Obj;
  return (schemas[schema] as { properties: Obj }).properties[name]!;
}
function schemaOf(doc: Doc, schema: string): Record<string, unknown> {
  return ((doc.components as Obj).schemas as Obj)[schema]!;
}

interface Scenario {
  name: string;
  edit(spec: string): Promise<void>;
  /** Text that must appear among the added lines of the diff (the diff is never empty). */
  adds: string[];
  /**
   * A limit the scenario edits: its value in the real spec stands as `{key}` in the removed lines, so the
   * snapshot does not change when the spec's value does (issue 36: editing a limit keeps every test green).
   */
  limit?: string;
}

const openapi = (spec: string, edit: (doc: Doc) => void) => editYaml(join(spec, 'openapi.yaml'), edit);
const data = (spec: string, file: string, edit: (doc: Doc) => void) =>
  editYaml(join(spec, 'data', file), edit);
const text = async (path: string, edit: (s: string) => string) => {
  const before = await readFile(path, 'utf8');
  const after = edit(before);
  if (after === before) throw new Error(`the scenario edit changed nothing in ${path}`);
  await writeFile(path, after);
};
// An id no real record has, built rather than written so this file cites no unknown id.
// Number 0 sorts before every real record, so the diff's context does not change when a record is added.
const NEW_ID = `C${0}`;

const SCENARIOS: Scenario[] = [
  {
    name: 'x-limits-max-length',
    edit: (s) => data(s, 'limits.yaml', (d) => ((d.limits as Obj).event_id_max_length!.value = 64)),
    adds: ['64'],
    limit: 'event_id_max_length',
  },
  {
    name: 'x-rules-pattern-warning',
    edit: (s) =>
      openapi(s, (d) => (field(d, 'ConversionEvent', 'partner_name').pattern = '^(direct|ss-[a-z]+)$')),
    adds: ['ss-[a-z]+'],
  },
  {
    name: 'x-rules-code-list-case',
    edit: (s) =>
      openapi(s, (d) => {
        const rules = field(d, 'CustomData', 'currency')['x-rules'] as Record<string, unknown>[];
        rules[0]!.case = 'lower';
      }),
    adds: ['lower'],
  },
  {
    name: 'x-rules-decimal-string-minimum',
    edit: (s) =>
      openapi(s, (d) => {
        const rules = field(d, 'CustomData', 'value')['x-rules'] as Record<string, unknown>[];
        rules[0]!.exclusiveMinimum = 10;
      }),
    adds: ['10'],
  },
  {
    name: 'x-rules-unix-seconds-window',
    edit: (s) => data(s, 'limits.yaml', (d) => ((d.limits as Obj).event_time_max_age_seconds!.value = 86400)),
    adds: ['86400', 'Events older than 1 day', 'at most 1 day old and 5 minutes ahead'],
    limit: 'event_time_max_age_seconds',
  },
  {
    name: 'x-rules-url-schemes',
    edit: (s) =>
      openapi(s, (d) => {
        const rules = field(d, 'ConversionEvent', 'event_source_url')['x-rules'] as Record<string, unknown>[];
        rules[0]!.schemes = ['https'];
      }),
    adds: ['https'],
  },
  {
    name: 'x-rules-require-any-of',
    edit: (s) =>
      openapi(s, (d) => {
        const rules = schemaOf(d, 'UserData')['x-rules'] as Record<string, unknown>[];
        (rules[0]!.alternatives as string[][]).push(['external_id']);
      }),
    adds: ['external_id'],
  },
  {
    name: 'x-rules-ids-in-items-removed',
    edit: (s) =>
      openapi(s, (d) => {
        const c = schemaOf(d, 'CustomData');
        c['x-rules'] = (c['x-rules'] as { kind: string }[]).filter((r) => r.kind !== 'ids-in-items');
      }),
    adds: [],
  },
  {
    name: 'x-rules-user-agent-data',
    edit: (s) =>
      data(s, 'normalization.yaml', (d) =>
        (d.userAgent as { botPatterns: string[] }).botPatterns.push('scraper'),
      ),
    adds: ['scraper'],
  },
  {
    name: 'x-severity-removed',
    edit: (s) => openapi(s, (d) => delete field(d, 'ConversionEvent', 'partner_name')['x-severity']),
    adds: ['pattern_mismatch'],
  },
  {
    name: 'x-case-insensitive-off',
    edit: (s) => openapi(s, (d) => delete field(d, 'CustomData', 'opt_out_type')['x-case-insensitive']),
    adds: [],
  },
  {
    name: 'x-expected-text',
    edit: (s) =>
      openapi(s, (d) => (field(d, 'ConversionEvent', 'event_id')['x-expected'] = 'an order number')),
    adds: ['an order number'],
  },
  {
    name: 'x-unknown-keys-warning',
    edit: (s) => openapi(s, (d) => (schemaOf(d, 'CustomData')['x-unknown-keys'] = 'warning')),
    adds: ['warning'],
  },
  {
    name: 'x-recommended-event-group',
    edit: (s) =>
      openapi(
        s,
        (d) => (field(d, 'CustomData', 'predicted_ltv')['x-recommended'] = { eventNames: 'purchase' }),
      ),
    adds: ['predicted_ltv'],
  },
  {
    name: 'x-normalize-kind',
    edit: (s) => openapi(s, (d) => (field(d, 'UserData', 'ct')['x-normalize'] = 'name')),
    adds: ['name'],
  },
  {
    name: 'x-source-pinterest',
    edit: (s) => openapi(s, (d) => (field(d, 'ConversionEvent', 'partner_name')['x-source'] = 'pinterest')),
    adds: ['partner_name'],
  },
  {
    name: 'x-dedup-window',
    edit: (s) => data(s, 'limits.yaml', (d) => ((d.limits as Obj).dedup_window_seconds!.value = 86400)),
    // The prose follows the table (C108): the limit's own description and the differences page.
    adds: ['86400', 'deduplicates (1 day)', 'within 1 day, of any action source'],
  },
  {
    // C120: `elsewhere: accepted` keeps a zero outside the group silent (C86's rule); the warning's call goes.
    name: 'x-rules-positive-for-events-elsewhere',
    edit: (s) =>
      openapi(s, (d) => {
        const rules = schemaOf(d, 'ConversionEvent')['x-rules'] as Record<string, unknown>[];
        rules.find((r) => r.kind === 'positive-for-events')!.elsewhere = 'accepted';
      }),
    adds: ['zero is accepted on other events'],
  },
  {
    name: 'event-names-group',
    edit: (s) =>
      data(s, 'event-names.yaml', (d) => (d.groups as Record<string, string[]>).purchase!.push('lead')),
    adds: ['lead'],
  },
  {
    name: 'messages-template',
    edit: (s) =>
      data(s, 'messages.yaml', (d) => {
        (d.messages as Obj).hash_dropped!.template = '{path} is not a SHA-256 hex digest and was dropped.';
      }),
    adds: ['is not a SHA-256 hex digest and was dropped.'],
  },
  {
    name: 'decisions-superseded',
    edit: (s) =>
      text(join(s, 'decisions/C3-batch-response.md'), (t) =>
        t.replace('status: accepted', 'status: superseded\nsupersededBy: C18'),
      ),
    adds: ['superseded'],
  },
  {
    name: 'decisions-new-record',
    edit: (s) =>
      writeFile(
        join(s, `decisions/${NEW_ID}-scenario.md`),
        `---\nid: ${NEW_ID}\ntitle: A scenario record\nstatus: accepted\ndate: 2026-11-23\nsource: a generator test\nseed: ["2.5"]\n---\n## Decision\nThe statement.\n\n## Reason\nThe reason.\n`,
      ),
    adds: ['A scenario record', 'The statement.', 'The reason.', 'a generator test'],
  },
  {
    name: 'differences-row',
    edit: (s) =>
      data(s, 'differences.yaml', (d) => {
        (d.differences as Doc[]).push({
          topic: 'A scenario topic',
          pinterest: 'Pinterest does one thing.',
          service: 'This service does another.',
          reason: 'Because of a scenario.',
          decisions: ['C4'],
          evidence: 'A generator test.',
        });
      }),
    adds: ['A scenario topic', 'Because of a scenario.'],
  },
];

/**
 * Left out of the diffs: renderings of what is diffed already (the HTML pages render the Markdown pages, and
 * api.html and openapi.json hold openapi.yaml), and vendored bundles.
 */
const RENDERINGS = /^packages\/events-docs\/public\/(.*\.html|openapi\.json|assets\/.*)$/;

async function emitFrom(edit?: (spec: string) => Promise<void>): Promise<Map<string, string>> {
  const root = await copySpec();
  try {
    if (edit) await edit(join(root, 'spec'));
    const files: EmittedFile[] = await emitAll(await buildIR(await loadSpec(join(root, 'spec'))), emitters);
    return new Map(files.filter((f) => !RENDERINGS.test(f.path)).map((f) => [f.path, f.content]));
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

/** A limit's value in the real spec (spec/data/limits.yaml). */
async function limitValue(key: string): Promise<number> {
  const doc = parse(await readFile(join(realSpecDir, 'data', 'limits.yaml'), 'utf8')) as {
    limits: Record<string, { value: number }>;
  };
  return doc.limits[key]!.value;
}

/** The removed lines of a diff with a limit's value (and its thousands-separated form) as `{key}`. */
function scrubLimit(changes: string, key: string, value: number): string {
  const forms = [String(value), value.toLocaleString('en-US')].filter((f, i, all) => all.indexOf(f) === i);
  const pattern = new RegExp(
    `(?<![\\d.,])(${forms.map((f) => f.replace(/[.,]/g, '\\$&')).join('|')})(?![\\d])`,
    'g',
  );
  return changes
    .split('\n')
    .map((l) => (l.startsWith('-') && !l.startsWith('---') ? l.replace(pattern, `{${key}}`) : l))
    .join('\n');
}

function diff(before: Map<string, string>, after: Map<string, string>): string {
  const paths = [...new Set([...before.keys(), ...after.keys()])].sort();
  return paths
    .filter((p) => before.get(p) !== after.get(p))
    .map((p) =>
      // No context lines: a line beside a change holds whatever the spec says there now (another limit's
      // value), and a snapshot must change only with what its scenario changes (issue 36).
      createTwoFilesPatch(`a/${p}`, `b/${p}`, before.get(p) ?? '', after.get(p) ?? '', '', '', { context: 0 })
        .split('\n')
        .slice(1)
        // Hunk positions shift with unrelated spec edits; the file and the lines locate each change.
        .map((l) => (l.startsWith('@@ ') ? '@@' : l))
        .join('\n'),
    )
    .join('');
}

describe('scenario specs: what one edit changes in the emitted files', () => {
  let base: Map<string, string>;
  beforeAll(async () => {
    base = await emitFrom();
  }, 60_000);
  afterAll(() => base.clear());

  it.each(SCENARIOS)(
    '$name',
    async ({ name, edit, adds, limit }) => {
      let changes = diff(base, await emitFrom(edit));
      if (limit) changes = scrubLimit(changes, limit, await limitValue(limit));
      const added = changes
        .split('\n')
        .filter((l) => l.startsWith('+') && !l.startsWith('+++'))
        .join('\n');
      expect(changes, `${name} changes the output`).not.toBe('');
      for (const a of adds) expect(added, `${name} adds ${a}`).toContain(a);
      await expect(changes).toMatchFileSnapshot(`__snapshots__/scenarios/${name}.diff`);
    },
    60_000,
  );
});
