import { basename } from 'node:path';
import { Lexer } from 'marked';
import type { DecisionIR } from '../ir/types.js';
import type { LoadedDecision } from '../load/decisions.js';
import { Reader } from '../load/reader.js';
import { SpecError } from '../load/spec-error.js';

/** A decision id: `C` and a number; cited as such (`\bC\d{1,3}\b`) in code, tests, docs and the spec. */
export const DECISION_ID = /^C\d{1,3}$/;
const STATUSES = ['accepted', 'superseded'] as const;
const KEYS = ['id', 'title', 'status', 'date', 'source', 'seed', 'supersededBy'];
/** The Markdown sections of a record, in this order, each required and non-empty. */
const SECTIONS = ['Decision', 'Reason'] as const;

const idNumber = (id: string) => Number(id.slice(1));

/** `## Decision` and `## Reason` of a record's Markdown; any other top-level text is an error. */
function sections(d: LoadedDecision): Record<(typeof SECTIONS)[number], string> {
  const found = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const token of new Lexer().lex(d.body)) {
    if (token.type === 'heading' && token.depth === 2) {
      if (!(SECTIONS as readonly string[]).includes(token.text))
        throw new SpecError(d.file, `## ${token.text}`, 'decision-section-unknown', {
          sections: SECTIONS.join(' and '),
        });
      if (found.has(token.text)) throw new SpecError(d.file, `## ${token.text}`, 'decision-section-twice');
      current = [];
      found.set(token.text, current);
    } else if (current) current.push(token.raw);
    else if (token.type !== 'space')
      throw new SpecError(d.file, '(body)', 'decision-text-before-section', { section: SECTIONS[0] });
  }
  const out = {} as Record<(typeof SECTIONS)[number], string>;
  for (const name of SECTIONS) {
    const text = found.get(name)?.join('').trim();
    if (!text) throw new SpecError(d.file, `## ${name}`, 'decision-section-missing');
    out[name] = text;
  }
  return out;
}

function readOne(d: LoadedDecision): DecisionIR {
  const r = new Reader(d.file, d.frontMatter);
  for (const key of Object.keys(r.object()))
    if (!KEYS.includes(key)) r.at(key).fail('decision-field-unknown', { fields: KEYS.join(', ') });
  const id = r.at('id').string();
  if (!DECISION_ID.test(id)) r.at('id').fail('decision-id-format', { id });
  if (!basename(d.file).startsWith(`${id}-`)) r.at('id').fail('decision-file-name', { id });
  const nonEmpty = (key: string) => {
    const s = r.at(key).string().trim();
    if (!s) r.at(key).fail('empty-text');
    return s;
  };
  const date = r.at('date').string();
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) r.at('date').fail('decision-date-format', { date });
  const status = r.at('status').oneOf(STATUSES);
  const supersededBy = r.at('supersededBy').optString();
  if (status === 'superseded' && !supersededBy) r.at('supersededBy').fail('superseded-without-replacement');
  if (status === 'accepted' && supersededBy) r.at('supersededBy').fail('replacement-not-superseded');
  const seed = r.at('seed').present
    ? r
        .at('seed')
        .array()
        .map((s) => String(s.value))
    : [];
  const body = sections(d);
  return {
    id,
    title: nonEmpty('title'),
    status,
    date,
    source: nonEmpty('source'),
    seed,
    ...(supersededBy ? { supersededBy } : {}),
    decision: body.Decision,
    reason: body.Reason,
    file: d.file,
  };
}

/** Reads and cross-checks every record: unique ids, and every `supersededBy` names another record. */
export function readDecisions(loaded: LoadedDecision[]): DecisionIR[] {
  const out = loaded.map(readOne);
  const byId = new Map<string, DecisionIR>();
  for (const d of out) {
    const other = byId.get(d.id);
    if (other) throw new SpecError(d.file, 'id', 'decision-id-twice', { id: d.id, file: other.file });
    byId.set(d.id, d);
  }
  for (const d of out)
    if (d.supersededBy) {
      if (d.supersededBy === d.id) throw new SpecError(d.file, 'supersededBy', 'superseded-by-itself');
      if (!byId.has(d.supersededBy))
        throw new SpecError(d.file, 'supersededBy', 'unknown-decision', { id: d.supersededBy });
    }
  return out.sort((a, b) => idNumber(a.id) - idNumber(b.id));
}
