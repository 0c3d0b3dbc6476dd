// The examples of the docs (public/examples.json, generated from the spec's `example` values) run through
// the validators the server uses: the documented response must be the validators' response, exactly.
import { readFileSync } from 'node:fs';
import { hashUserData, sha256Hex, validateBatch } from '@org/events-validators';
import { describe, expect, it } from 'vitest';
import { examplesJsonPath } from '../src/index.js';

interface ExamplesFile {
  context: { now: number; currency: string; customEventNames: string[] };
  examples: { name: string; request: unknown; response: unknown }[];
  normalization: { field: string; kind: string; raw: string; normalized: string; sha256: string }[];
  specGaps: string[];
}

const file = JSON.parse(readFileSync(examplesJsonPath, 'utf8')) as ExamplesFile;

describe('documented examples (C3, C4)', () => {
  it('holds a full request and a partial failure', () => {
    expect(file.examples.map((e) => e.name)).toEqual(['full', 'partial-failure']);
  });

  for (const ex of file.examples)
    it(`${ex.name}: the documented response is what validateBatch answers`, () => {
      const result = validateBatch(ex.request, file.context);
      if (!result.ok) expect.fail(`request-level failure ${result.status}: ${JSON.stringify(result.error)}`);
      expect(result.response).toEqual(ex.response);
    });

  it('the partial failure has processed and failed events in one 200 answer (seed 4.1 rule 1, C3)', () => {
    const r = file.examples.find((e) => e.name === 'partial-failure')!.response as {
      num_events_received: number;
      num_events_processed: number;
      events: { status: string }[];
    };
    expect(new Set(r.events.map((e) => e.status))).toEqual(new Set(['processed', 'failed']));
    expect(r.num_events_processed).toBe(r.events.filter((e) => e.status === 'processed').length);
  });

  it('every field example of the spec fits its field (the docs leave out those that do not)', () => {
    expect(file.specGaps, 'fix these `example` values in spec/openapi.yaml').toEqual([]);
  });
});

describe('normalization worked example (C5)', () => {
  it('has one row per hashed user_data field, each a lower-case SHA-256 of the normalized value', () => {
    expect(file.normalization.length).toBeGreaterThan(0);
    for (const w of file.normalization) expect(w.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  // The validators' client-side helpers (C5) must agree with the documented worked example.
  it('agrees with normalize, sha256Hex and hashUserData of @org/events-validators', async () => {
    const raw: Record<string, string> = {};
    for (const w of file.normalization) {
      const name = w.field.split('.').pop()!;
      raw[name] = w.raw;
      expect(await sha256Hex(w.normalized), w.field).toBe(w.sha256);
    }
    // All fields at once, as a sender would: the country selects the zip rule (C5).
    const hashed = (await hashUserData(raw)) as Record<string, unknown>;
    for (const w of file.normalization) {
      const name = w.field.split('.').pop()!;
      expect(hashed[name], `${w.field} from ${JSON.stringify(w.raw)}`).toEqual([w.sha256]);
    }
  });
});
