// Decision records (spec/decisions/*.md): the real ones load, and each broken record gives a SpecError that
// names the file and the field. The differences data must cite existing records.
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { LoadedDecision } from '../src/load/decisions.js';
import { parseDecisionFile } from '../src/load/decisions.js';
import { loadSpec } from '../src/load/load-spec.js';
import { SpecError } from '../src/load/spec-error.js';
import { buildIR } from '../src/model/build-ir.js';
import { readDecisions } from '../src/model/decisions.js';
import { copySpec, realSpecDir } from './helpers.js';

const FILE = 'spec/decisions/C6-deduplication.md';
// Ids with no record are built, not written, so this file does not itself cite an unknown id (gen checks that).
const NO_RECORD = `C${999}`;
const record = (front: string, body = '## Decision\nKey and window.\n\n## Reason\nBecause.\n') =>
  `---\n${front}\n---\n${body}`;
const FRONT = 'id: C6\ntitle: Deduplication\nstatus: accepted\ndate: 2026-11-01\nsource: the seed is silent';

function errorOf(files: [string, string][]): string {
  try {
    readDecisions(files.map(([file, text]) => parseDecisionFile(text, file)));
  } catch (e) {
    if (e instanceof SpecError) return e.message;
    throw e;
  }
  throw new Error('expected a SpecError');
}

describe('the real records', () => {
  it('C1-C19 load in number order with statement, reason and source', async () => {
    const ir = await buildIR(await loadSpec(realSpecDir));
    expect(ir.decisions.map((d) => d.id).slice(0, 19)).toEqual(
      Array.from({ length: 19 }, (_, i) => `C${i + 1}`),
    );
    const c6 = ir.decisions.find((d) => d.id === 'C6')!;
    expect(c6.title).toBe('Deduplication');
    expect(c6.seed).toEqual(['1', '2.1']);
    expect(c6.decision).toMatch(
      /^The key is \(ad account, `event_name`, `event_id`\); the window is 48 hours\./,
    );
    expect(c6.reason.length).toBeGreaterThan(50);
    expect(c6.file).toBe(FILE);
    const c4 = ir.decisions.find((d) => d.id === 'C4')!;
    expect(c4.decision).toContain('nor `custom`');
    expect(ir.differences.length).toBeGreaterThanOrEqual(15);
  });
});

describe('a record is read', () => {
  it('into its fields and its two sections', () => {
    const [d] = readDecisions([parseDecisionFile(record(`${FRONT}\nseed: ["1", 2.1]`), FILE)]);
    expect(d).toEqual({
      id: 'C6',
      title: 'Deduplication',
      status: 'accepted',
      date: '2026-11-01',
      source: 'the seed is silent',
      seed: ['1', '2.1'],
      decision: 'Key and window.',
      reason: 'Because.',
      file: FILE,
    });
  });

  it('sorted by number, not by file name', () => {
    const at = (id: string) =>
      parseDecisionFile(record(FRONT.replace('C6', id)), `spec/decisions/${id}-deduplication.md`);
    expect(readDecisions([at('C10'), at('C2'), at('C1')]).map((d) => d.id)).toEqual(['C1', 'C2', 'C10']);
  });
});

describe('a broken record names the file and the field', () => {
  const cases: [string, [string, string][], string][] = [
    [
      'no front matter',
      [[FILE, '## Decision\nx\n']],
      `${FILE}: line 1: expected front matter opening with "---" [front-matter-open]`,
    ],
    [
      'unclosed front matter',
      [[FILE, `---\n${FRONT}\n`]],
      `${FILE}: line 1: the front matter has no closing "---" line [front-matter-close]`,
    ],
    [
      'invalid YAML, with the line in the file',
      [[FILE, record(`${FRONT}\ntitle: twice`)]],
      `${FILE}: line 7, column 1: Map keys must be unique [yaml-syntax]`,
    ],
    [
      'a missing id',
      [[FILE, record(FRONT.replace('id: C6\n', ''))]],
      `${FILE}: id: expected a string, found nothing [expected-string]`,
    ],
    [
      'a bad id',
      [[FILE, record(FRONT.replace('id: C6', 'id: D6'))]],
      `${FILE}: id: expected C and a number, such as C6; found "D6" [decision-id-format]`,
    ],
    [
      'a file name of another id',
      [['spec/decisions/C7-dedup.md', record(FRONT)]],
      'spec/decisions/C7-dedup.md: id: the file name must start with "C6-" (such as C6-deduplication.md) [decision-file-name]',
    ],
    [
      'an unknown status',
      [[FILE, record(FRONT.replace('accepted', 'done'))]],
      `${FILE}: status: expected one of accepted, superseded, found "done" [expected-one-of]`,
    ],
    [
      'a bad date',
      [[FILE, record(FRONT.replace('2026-11-01', '1 Nov 2026'))]],
      `${FILE}: date: expected YYYY-MM-DD, found "1 Nov 2026" [decision-date-format]`,
    ],
    [
      'an empty title',
      [[FILE, record(FRONT.replace('Deduplication', "''"))]],
      `${FILE}: title: must not be empty [empty-text]`,
    ],
    [
      'a missing source',
      [[FILE, record(FRONT.replace('\nsource: the seed is silent', ''))]],
      `${FILE}: source: expected a string, found nothing [expected-string]`,
    ],
    [
      'an unknown field',
      [[FILE, record(`${FRONT}\nsuperseded_by: C7`)]],
      `${FILE}: superseded_by: is not a field of a decision record (id, title, status, date, source, seed, supersededBy) [decision-field-unknown]`,
    ],
    [
      'superseded without a replacement',
      [[FILE, record(FRONT.replace('accepted', 'superseded'))]],
      `${FILE}: supersededBy: a superseded record names the record that replaces it [superseded-without-replacement]`,
    ],
    [
      'a replacement of an accepted record',
      [[FILE, record(`${FRONT}\nsupersededBy: C7`)]],
      `${FILE}: supersededBy: only a superseded record names a replacement; set status: superseded [replacement-not-superseded]`,
    ],
    [
      'a replacement that does not exist',
      [[FILE, record(`${FRONT.replace('accepted', 'superseded')}\nsupersededBy: ${NO_RECORD}`)]],
      `${FILE}: supersededBy: no record in spec/decisions has the id ${NO_RECORD} [unknown-decision]`,
    ],
    [
      'a duplicate id',
      [
        [FILE, record(FRONT)],
        ['spec/decisions/C6-dedup-again.md', record(FRONT)],
      ],
      `spec/decisions/C6-dedup-again.md: id: C6 is also the id of ${FILE} [decision-id-twice]`,
    ],
    [
      'no Reason section',
      [[FILE, record(FRONT, '## Decision\nx\n')]],
      `${FILE}: ## Reason: is missing or empty [decision-section-missing]`,
    ],
    [
      'an empty Decision',
      [[FILE, record(FRONT, '## Decision\n\n## Reason\ny\n')]],
      `${FILE}: ## Decision: is missing or empty [decision-section-missing]`,
    ],
    [
      'another section',
      [[FILE, record(FRONT, '## Decision\nx\n## Consequences\nz\n## Reason\ny\n')]],
      `${FILE}: ## Consequences: expected only the sections Decision and Reason [decision-section-unknown]`,
    ],
    [
      'text before the first section',
      [[FILE, record(FRONT, 'Preamble.\n## Decision\nx\n## Reason\ny\n')]],
      `${FILE}: (body): text before "## Decision"; start the body with it [decision-text-before-section]`,
    ],
  ];
  it.each(cases)('%s', (_, files, message) => {
    expect(errorOf(files)).toBe(message);
  });
});

describe('in a copy of the spec', () => {
  const temps: string[] = [];
  afterEach(async () => {
    await Promise.all(temps.splice(0).map((t) => rm(t, { recursive: true, force: true })));
  });

  it('a difference citing an id without a record fails the build', async () => {
    const root = await copySpec();
    temps.push(root);
    const path = join(root, 'spec/data/differences.yaml');
    await writeFile(
      path,
      (await readFile(path, 'utf8')).replace('decisions: [C3]', `decisions: [C3, ${NO_RECORD}]`),
    );
    await expect(buildIR(await loadSpec(join(root, 'spec')))).rejects.toThrow(
      `spec/data/differences.yaml: differences[0].decisions[1]: no record in spec/decisions has the id ${NO_RECORD}`,
    );
  });

  it('a record file reaches the IR; the folder may be absent', async () => {
    const root = await copySpec();
    temps.push(root);
    await rm(join(root, 'spec/decisions'), { recursive: true });
    const path = join(root, 'spec/data/differences.yaml');
    await writeFile(path, 'differences: []\n');
    const ir = await buildIR(await loadSpec(join(root, 'spec')));
    expect(ir.decisions).toEqual([] as LoadedDecision[]);
  });
});
