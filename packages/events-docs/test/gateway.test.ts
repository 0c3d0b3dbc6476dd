// C125: the "Running as a gateway" page's example (public/examples.json `gateway`, computed when the docs are
// generated) against the code the server runs: the hashed event is what `hashUserData` makes of the raw values,
// the warnings on each kind of account are the validators', and so are the match-quality figures.
import { readFileSync } from 'node:fs';
import { hashUserData, matchQuality, validateBatch } from '@org/events-validators';
import { describe, expect, it } from 'vitest';
import { examplesJsonPath, referenceRoot } from '../src/index.js';

type Obj = Record<string, unknown>;

interface Gateway {
  raw: Obj;
  hashed: Obj;
  fields: string[];
  before: { warnings: string[]; score: number };
  after: { warnings: string[]; score: number };
}

const file = JSON.parse(readFileSync(examplesJsonPath, 'utf8')) as {
  context: { now: number; currency: string; customEventNames: string[] };
  gateway: Gateway;
};
const g = file.gateway;

const warningOf = (event: Obj) => {
  const r = validateBatch({ data: [event] }, file.context);
  if (!r.ok) throw new Error(`request-level failure ${r.status}`);
  expect(r.response.num_events_processed).toBe(1);
  return r.response.events[0]?.warning_message ?? null;
};
const joined = (warnings: string[]) => (warnings.length ? warnings.join('; ') : null);

describe('the gateway example (C125)', () => {
  it("is hashed as the client's hashUserData hashes", async () => {
    const member = 'user_data';
    const raw = g.raw[member] as Record<string, string[]>;
    const keys = g.fields.map((f) => f.slice(member.length + 1));
    expect(keys.length).toBeGreaterThan(0);
    const hashed = await hashUserData(Object.fromEntries(keys.map((k) => [k, raw[k]])));
    expect(g.hashed[member]).toMatchObject(hashed);
    expect({ ...g.hashed, [member]: undefined }).toEqual({ ...g.raw, [member]: undefined });
  });

  it('without the setting: the raw values are dropped with the documented warnings and match quality', () => {
    expect(warningOf(g.raw)).toBe(joined(g.before.warnings));
    expect(matchQuality(g.raw).score).toBeCloseTo(g.before.score, 10);
  });

  it('with it: the documented warnings and match quality, higher', () => {
    expect(warningOf(g.hashed)).toBe(joined(g.after.warnings));
    expect(matchQuality(g.hashed).score).toBeCloseTo(g.after.score, 10);
    expect(g.after.score).toBeGreaterThan(g.before.score);
  });

  it('has a page', () => {
    const page = readFileSync(`${referenceRoot}/gateway.md`, 'utf8');
    expect(page).toContain('# Running as a gateway');
    expect(page).toContain(`${Math.round(g.after.score * 100)}%`);
  });
});
