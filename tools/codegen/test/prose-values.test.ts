// C108: limits reach prose through templates, and `pnpm gen` refuses a limit's value written out in a prose
// field: which numbers it takes for a limit, which it leaves alone, and the error on a small broken spec.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkProseValues, findProseValues, type ProseContext, valuesIn } from '../src/check/prose-values.js';
import type { IR } from '../src/ir/types.js';
import { LIMIT_FORMATS, TIME_UNITS } from '../src/kit/units.js';
import { loadSpec } from '../src/load/load-spec.js';
import { SpecError } from '../src/load/spec-error.js';
import { buildIR } from '../src/model/build-ir.js';
import { editYaml, realSpecDir, specCopies } from './helpers.js';

type Obj = Record<string, Record<string, Record<string, unknown>>>;

const tmpSpec = specCopies();

let ir: IR;
let ctx: ProseContext;
beforeAll(async () => {
  ir = await buildIR(await loadSpec(realSpecDir));
  ctx = { limits: ir.limits, statuses: new Set([200, 400, 404, 503]) };
});

describe('numbers taken for a limit', () => {
  it.each([
    ['Window of 48 hours.', '48 hours', '{limit:dedup_window_seconds|duration}'],
    ['every 15\nseconds', '15 seconds', '{limit:request_stream_ping_seconds|duration}'],
    ['a 172,800 s window', '172,800 s', '{limit:dedup_window_seconds|duration}'],
    ['at most 5-minute skew', '5-minute', '{limit:delivery_retry_max_seconds|duration}'],
    ['waits 500 ms', '500 ms', '{limit:delivery_retry_base_ms|duration}'],
    ['bodies over 256 MiB', '256 MiB', '{limit:body_bytes_in_flight_max}'],
    ['over 16384 bytes', '16384 bytes', '{limit:headers_max_bytes}'],
    ['URLs of 8,192 characters', '8,192 characters', '{limit:url_max_length|grouped}'],
    ['up to 1000 per request', '1000', '{limit:batch_max_events}'],
    ['below 0.35', '0.35', '{limit:recommended_warning_score_below}'],
  ])('%j writes out %j', (text, written, template) => {
    const [found, ...more] = valuesIn(text, undefined, ctx);
    expect(more).toEqual([]);
    expect(found?.written).toBe(written);
    expect(found?.template).toBe(template);
  });

  it('names every limit of that value, and {value} first in a limit of its own', () => {
    expect(valuesIn('(7 days)', 'event_time_max_age_seconds', ctx)).toEqual([
      {
        written: '7 days',
        limits: ['event_time_max_age_seconds', 'delivery_stream_max_age_seconds'],
        template: '{value|duration}',
      },
    ]);
  });
});

describe('numbers left alone', () => {
  it.each([
    ['SHA-256 hex digests of 64 characters'],
    ['Pinterest OpenAPI 5.23 and 5.28'],
    ['seed 8 rule 4; issue 256; RFC 7493'],
    ['always 200, else 400 or 404 or 503'],
    ['woocommerce issue #967, C100, IPv4, cellular_4g'],
    ['a live test-mode response (2026-09-24) at 12:00'],
    ['`1000` and `48 hours` are examples'],
    ['its text: "older than 7 days".'],
    ['trial 1,000 a day, standard 120,000 a minute, 100 requests per second'],
    ['Mozilla/5.0 (Windows NT 10.0; Win64)'],
    ['the first 5 digits, 1 to 18 digits, at most 3 fields, 15 names'],
    ['within one hour, one minute'],
    ['{limit:dedup_window_seconds|duration} and {value} hours'],
  ])('%j', (text) => {
    expect(valuesIn(text, undefined, ctx)).toEqual([]);
  });

  it('the spec as committed writes no limit out', async () => {
    expect(findProseValues(await loadSpec(realSpecDir), ir)).toEqual([]);
  });
});

describe('templates', () => {
  it('are rendered everywhere the spec is read: limits, differences, the OpenAPI document', () => {
    const dedup = ir.limits.find((l) => l.key === 'dedup_window_seconds');
    expect(dedup?.description).toBe(
      'Window in which (ad account, event_name, event_id) deduplicates (48 hours).',
    );
    expect(ir.differences[1]?.topic).toBe('Events older than 7 days');
    const difference = (topic: string) => ir.differences.find((d) => d.topic === topic)?.service;
    expect(difference('String length caps')).toContain(
      '(identifiers 256, free text 1,024, URLs 8,192 characters)',
    );
    expect(difference('Hashes in one `user_data` field')).toMatch(/^At most 100 hashes in one field;/);
    const schemas = (ir.openapi.components as Obj).schemas as Obj;
    expect((schemas.ConversionEventsRequest!.properties as Obj).data!.description).toBe(
      'The events, 1 to 1000 (C2). Each is checked on its own.',
    );
    // {value} outside a limit's description is a message parameter.
    expect(ir.messages.find((m) => m.code === 'currency_defaulted')?.params).toContain('value');
  });

  it.each([
    [
      '{limit:dedup_window_seconds|hours}',
      'unknown format "hours" of limit dedup_window_seconds; formats are plain, grouped, duration [unknown-limit-format]',
    ],
    [
      '{limit:batch_max_events|duration}',
      'limit batch_max_events is in count; only a time limit has the duration format [duration-of-non-time]',
    ],
    [
      '{limit:no_such_limit}',
      'unknown limit "no_such_limit"; limits are defined in spec/data/limits.yaml [unknown-limit]',
    ],
  ])('%j fails gen where it is written', async (template, problem) => {
    const spec = await tmpSpec();
    await editYaml(join(spec, 'data/differences.yaml'), (d) => {
      (d.differences as Record<string, string>[])[0]!.reason = `See ${template}.`;
    });
    await expect(buildIR(await loadSpec(spec))).rejects.toThrow(
      `spec/data/differences.yaml: differences[0].reason: ${problem}`,
    );
  });
});

describe('templates and the check agree', () => {
  it('what a template renders in prose, the check takes for that limit (fast-check)', () => {
    // Every limit the check can tell from other numbers: time and size with their unit, counts from 100 up.
    const told = ir.limits.filter(
      (l) =>
        TIME_UNITS.includes(l.unit) || l.unit === 'bytes' || !Number.isInteger(l.value) || l.value >= 100,
    );
    fc.assert(
      fc.property(
        fc.constantFrom(...told),
        fc.constantFrom('Within ', 'at most ', '(', 'after '),
        fc.constantFrom('.', ';', ')', ' per request'),
        (l, before, after) => {
          const time = TIME_UNITS.includes(l.unit);
          const rendered = time ? LIMIT_FORMATS.duration(l) : LIMIT_FORMATS.plain(l);
          const unit = l.unit === 'bytes' && !rendered.endsWith('MiB') ? ' bytes' : '';
          const text = `${before}${rendered}${unit}${after}`;
          expect(valuesIn(text, undefined, ctx).flatMap((v) => v.limits)).toContain(l.key);
        },
      ),
    );
  });
});

describe('pnpm gen on a spec that writes a value out', () => {
  it('fails naming the file, the field, what is written, the limits and the template to write', async () => {
    const spec = await tmpSpec();
    await editYaml(join(spec, 'data/limits.yaml'), (d) => {
      (d as Obj).limits!.dedup_window_seconds!.description = 'Dedup window (48 hours).';
    });
    const loaded = await loadSpec(spec);
    const err = (() => {
      try {
        checkProseValues(loaded, ir);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(SpecError);
    expect((err as SpecError).message).toBe(
      'spec/data/limits.yaml: limits.dedup_window_seconds.description: writes out "48 hours", the value of ' +
        'limits dedup_window_seconds and delivery_stream_duplicate_window_seconds; write {value|duration} ' +
        '(or the key of the one meant) so the text follows spec/data/limits.yaml (C108) [limit-value-in-prose]',
    );
  });

  it('is run by pnpm gen --check, which exits 1 with the error', async () => {
    const spec = await tmpSpec();
    await editYaml(join(spec, 'data/differences.yaml'), (d) => {
      (d.differences as Record<string, string>[])[0]!.reason = 'Bodies up to 5 MiB.';
    });
    const cli = fileURLToPath(new URL('../src/cli.ts', import.meta.url));
    const run = spawnSync(
      process.execPath,
      ['--import', 'tsx', cli, '--check', '--spec', spec, '--root', dirname(spec)],
      {
        cwd: fileURLToPath(new URL('..', import.meta.url)),
        encoding: 'utf8',
      },
    );
    expect(run.stderr).toBe(
      'spec error: spec/data/differences.yaml: differences[0].reason: writes out "5 MiB", the value of limit ' +
        'body_max_bytes; write {limit:body_max_bytes} so the text follows spec/data/limits.yaml (C108) [limit-value-in-prose]\n',
    );
    expect(run.status).toBe(1);
  });

  it('lists every other field that writes a value out', async () => {
    const spec = await tmpSpec();
    await editYaml(join(spec, 'openapi.yaml'), (d) => {
      const props = (d as Obj).components!.schemas!.ConversionEventsRequest as Obj;
      props.properties!.data!.description = 'The events, at most 1,000.';
    });
    await editYaml(join(spec, 'data/differences.yaml'), (d) => {
      (d.differences as Record<string, string>[])[0]!.service = 'Within 12 hours.';
    });
    const found = findProseValues(await loadSpec(spec), ir).map((v) => `${v.file} ${v.path} ${v.template}`);
    expect(found).toEqual([
      'spec/openapi.yaml components.schemas.ConversionEventsRequest.properties.data.description {limit:batch_max_events|grouped}',
      'spec/data/differences.yaml differences[0].service {limit:admin_session_max_age_seconds|duration}',
    ]);
  });
});
