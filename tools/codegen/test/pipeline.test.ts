import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { emitAll, runGen } from '../src/emit/run.js';
import { eventsTypesEmitter } from '../src/emitters/events-types/index.js';
import { emitters } from '../src/emitters/index.js';
import { loadSpec } from '../src/load/load-spec.js';
import { SpecError } from '../src/load/spec-error.js';
import { buildIR, irStats } from '../src/model/build-ir.js';
import { copySpec, editYaml, realSpecDir } from './helpers.js';

const temps: string[] = [];
afterEach(async () => {
  await Promise.all(temps.splice(0).map((t) => rm(t, { recursive: true, force: true })));
});
async function tmpSpec(): Promise<string> {
  const root = await copySpec();
  temps.push(root);
  return root;
}

async function specErrorOf(root: string): Promise<string> {
  try {
    await buildIR(await loadSpec(join(root, 'spec')));
  } catch (e) {
    if (e instanceof SpecError) return e.message;
    throw e;
  }
  throw new Error('expected a SpecError');
}

describe('the real spec', () => {
  it('builds an IR holding the seed tables in full', async () => {
    const ir = await buildIR(await loadSpec(realSpecDir));
    // Seed 2.2's standard names plus C20's `custom`, as many as the spec lists (an added name is no
    // failure); seed 8: 12 categories; C4: 4 action sources.
    const listed = (
      parse(await readFile(join(realSpecDir, 'data/event-names.yaml'), 'utf8')) as {
        standard: { name: string }[];
      }
    ).standard.map((e) => e.name);
    expect(ir.eventNames.standard.map((e) => e.name)).toEqual([...listed].sort());
    expect(ir.eventNames.standard.map((e) => e.name)).toContain('custom');
    expect(ir.eventNames.standard.find((e) => e.name === 'subscribe')).toEqual({
      name: 'subscribe',
      tagName: 'Subscribe',
      purpose: 'People who subscribe to information and updates',
      usableFor: ['conversion_reporting'],
    });
    expect(ir.rateLimits.categories.map((c) => c.name)).toEqual([
      'ads_analytics',
      'ads_conversions',
      'ads_read',
      'ads_write',
      'advanced_auction_read',
      'advanced_auction_write',
      'catalogs_read',
      'catalogs_write',
      'org_analytics',
      'org_read',
      'org_write',
      'trends_read',
    ]);
    expect(ir.enums.find((e) => e.name === 'ActionSource')?.values).toEqual([
      'web',
      'app_ios',
      'app_android',
      'offline',
    ]);
    // C2 order is kept as written (the two 503s: certain, then commit outcome unknown, C74).
    expect(ir.requestErrors.map((e) => e.status)).toEqual([
      413, 415, 401, 404, 403, 429, 400, 409, 404, 503, 503, 408, 431, 414, 500,
    ]);
    // x-limits reach the resolved OpenAPI document as plain keywords.
    const schemas = (
      ir.openapi.components as {
        schemas: Record<string, { properties: Record<string, { maxItems?: number; maxLength?: number }> }>;
      }
    ).schemas;
    // The values are the limits' own (limits.yaml), so editing one there keeps this true (issue 36).
    const limit = (key: string) => ir.limits.find((l) => l.key === key)?.value;
    expect(schemas.ConversionEventsRequest?.properties.data?.maxItems).toBe(limit('batch_max_events'));
    expect(schemas.ConversionEvent?.properties.event_id?.maxLength).toBe(limit('event_id_max_length'));
    const stats = irStats(ir);
    expect(stats.enums).toBe(ir.enums.length);
    expect(stats.fields).toBeGreaterThan(100);
  });
});

describe('bad specs fail with the file, the path and the problem', () => {
  it('a data file with a wrong type', async () => {
    const root = await tmpSpec();
    await editYaml(join(root, 'spec/data/limits.yaml'), (d) => {
      (d.limits as Record<string, { value: unknown }>).batch_max_events!.value = 'lots';
    });
    expect(await specErrorOf(root)).toBe(
      'spec/data/limits.yaml: limits.batch_max_events.value: expected a number, found string "lots" [expected-number]',
    );
  });

  it('YAML syntax errors give the line and column', async () => {
    const root = await tmpSpec();
    const { writeFile } = await import('node:fs/promises');
    await writeFile(join(root, 'spec/data/event-names.yaml'), 'standard:\n  - { name: x\n');
    expect(await specErrorOf(root)).toMatch(/^spec\/data\/event-names\.yaml: line \d+, column \d+: /);
  });

  it('an OpenAPI document swagger-parser rejects', async () => {
    const root = await tmpSpec();
    await editYaml(join(root, 'spec/openapi.yaml'), (d) => {
      (d.paths as Record<string, unknown>)['/v5/ad_accounts/{ad_account_id}/events'] = {
        post: { responses: 'nope' },
      };
    });
    expect(await specErrorOf(root)).toMatch(/^spec\/openapi\.yaml: paths\..*/);
  });

  it('a message code no rule kind emits', async () => {
    const root = await tmpSpec();
    await editYaml(join(root, 'spec/data/messages.yaml'), (d) => {
      (d.messages as Record<string, unknown>).mystery = {
        kind: 'url',
        severity: 'failed',
        template: 'x',
        description: 'x',
      };
    });
    expect(await specErrorOf(root)).toBe(
      'spec/data/messages.yaml: messages.mystery: no rule kind emits "mystery" (kind url) [message-code-unused]',
    );
  });

  it('a reason text the rule kind needs is missing', async () => {
    const root = await tmpSpec();
    await editYaml(join(root, 'spec/data/messages.yaml'), (d) => {
      delete (d.messages as Record<string, { reasons: Record<string, string> }>).invalid_ip_dropped!.reasons
        .all_zeros;
    });
    expect(await specErrorOf(root)).toBe(
      'spec/data/messages.yaml: messages.invalid_ip_dropped.reasons: rule kind ip-address tells apart all_zeros, invalid, user_agent; found invalid, user_agent [message-reasons-mismatch]',
    );
  });

  it('a rule kind whose code lost its template', async () => {
    const root = await tmpSpec();
    await editYaml(join(root, 'spec/data/messages.yaml'), (d) => {
      delete (d.messages as Record<string, unknown>).invalid_url;
    });
    expect(await specErrorOf(root)).toBe(
      'spec/data/messages.yaml: messages: no template for code "invalid_url", which rule kind url emits [message-template-missing]',
    );
  });
});

describe('determinism', () => {
  it('two runs give identical bytes', async () => {
    const spec = await loadSpec(realSpecDir);
    const a = await emitAll(await buildIR(spec), emitters);
    const b = await emitAll(await buildIR(await loadSpec(realSpecDir)), emitters);
    expect(b.map((f) => f.path)).toEqual(a.map((f) => f.path));
    for (const [i, f] of a.entries()) expect(b[i]!.content, f.path).toBe(f.content);
    // No generation time in any output; vendored third-party assets (the Redoc bundle) carry sample dates.
    for (const f of a.filter((x) => !x.path.includes('/assets/')))
      expect(f.content, f.path).not.toMatch(/\b20\d\d-\d\d-\d\dT\d\d:\d\d/);
  });
});

describe('a spec edit reaches the generated code without any hand edit', () => {
  it('a new standard event name and a changed limit appear in the emitted types and constants', async () => {
    const root = await tmpSpec();
    await editYaml(join(root, 'spec/data/event-names.yaml'), (d) => {
      (d.standard as unknown[]).push({
        name: 'book_demo',
        tagName: 'BookDemo',
        purpose: 'People who book a demo',
        usableFor: ['audience_creation'],
      });
    });
    await editYaml(join(root, 'spec/data/limits.yaml'), (d) => {
      (d.limits as Record<string, { value: number }>).batch_max_events!.value = 777;
    });
    const result = await runGen({ root, emitters: [eventsTypesEmitter] });
    expect(result.changed.length).toBeGreaterThan(0);
    const dir = join(root, 'packages/events-types/src/generated');
    const enums = await readFile(join(dir, 'enums.gen.ts'), 'utf8');
    expect(enums).toMatch(/export const STANDARD_EVENT_NAMES = \[[^\]]*'book_demo'/s);
    const table = await readFile(join(dir, 'event-names.gen.ts'), 'utf8');
    expect(table).toMatch(/name: 'book_demo',\s*tagName: 'BookDemo',\s*purpose: 'People who book a demo'/);
    const limits = await readFile(join(dir, 'limits.gen.ts'), 'utf8');
    expect(limits).toMatch(/batch_max_events: \{\s*value: 777,/);
    const schemas = await readFile(join(dir, 'schemas.gen.ts'), 'utf8');
    expect(schemas).toContain('at most 777 (limit `batch_max_events`) items');
    // And a second run against what was just written has nothing left to do.
    const again = await runGen({ root, emitters: [eventsTypesEmitter], check: true });
    expect(again.changed).toEqual([]);
    expect(again.stale).toEqual([]);
  });
});

describe('gen --check', () => {
  it('names changed, missing and stale files', async () => {
    const root = await tmpSpec();
    await runGen({ root, emitters: [eventsTypesEmitter] });
    const { writeFile, unlink } = await import('node:fs/promises');
    const dir = join(root, 'packages/events-types/src/generated');
    await writeFile(join(dir, 'limits.gen.ts'), '// hand edit\n');
    await unlink(join(dir, 'enums.gen.ts'));
    await writeFile(join(dir, 'old.gen.ts'), 'export {};\n');
    const check = await runGen({ root, emitters: [eventsTypesEmitter], check: true });
    expect(check.changed).toEqual([
      'packages/events-types/src/generated/enums.gen.ts',
      'packages/events-types/src/generated/limits.gen.ts',
    ]);
    expect(check.stale).toEqual(['packages/events-types/src/generated/old.gen.ts']);
    // --check wrote nothing.
    expect(await readFile(join(dir, 'limits.gen.ts'), 'utf8')).toBe('// hand edit\n');
  });
});
