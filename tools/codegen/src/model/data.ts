import type {
  CodeEntryIR,
  EventNamesIR,
  LimitIR,
  MessageIR,
  NamedCodeIR,
  NormalizationIR,
  RateLimitsIR,
  RateLimitWindowIR,
  RequestErrorIR,
  RequestProblemIR,
  Severity,
} from '../ir/types.js';
import type { LoadedSpec } from '../load/load-spec.js';
import { Reader } from '../load/reader.js';
import { limitRef } from '../rules/context.js';

const byKey =
  <T>(key: (t: T) => string) =>
  (a: T, b: T) =>
    key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0;

export function dataReader(spec: LoadedSpec, key: string): Reader {
  const d = spec.data[key];
  if (!d) return new Reader(spec.openapiFile, undefined, `x-data.${key}`).fail('data-file-missing');
  return new Reader(d.file, d.value);
}

export function readLimits(r: Reader): LimitIR[] {
  const units = ['count', 'bytes', 'characters', 'seconds', 'milliseconds', 'decimal'] as const;
  return r
    .at('limits')
    .entries()
    .map(([key, l]) => {
      if (!/^[a-z][a-z0-9_]*$/.test(key)) l.fail('limit-key-case');
      return {
        key,
        value: l.at('value').number(),
        unit: l.at('unit').oneOf(units),
        description: l.at('description').string(),
        source: String(l.at('source').string()),
        overflow: l.at('overflow').present ? l.at('overflow').oneOf(['fail', 'drop'] as const) : 'fail',
      };
    })
    .sort(byKey((l) => l.key));
}

export function readEventNames(r: Reader, limits: LimitIR[], usages: string[]): EventNamesIR {
  const standard = r
    .at('standard')
    .array()
    .map((e) => {
      const name = e.at('name').string();
      if (!/^[a-z][a-z0-9_]*$/.test(name)) e.at('name').fail('event-name-case');
      const source = e.at('source');
      return {
        name,
        tagName: e.at('tagName').stringOrNull(),
        purpose: e.at('purpose').string(),
        usableFor: e
          .at('usableFor')
          .array()
          .map((u) => u.oneOf(usages))
          .sort(),
        ...(source.present ? { source: source.string() } : {}),
      };
    })
    .sort(byKey((e) => e.name));
  const names = new Set<string>();
  for (const [i, e] of standard.entries()) {
    if (names.has(e.name)) r.at('standard').at(i).fail('event-name-twice', { name: e.name });
    names.add(e.name);
  }
  const groups: Record<string, string[]> = {};
  for (const [g, list] of r
    .at('groups')
    .entries()
    .sort(byKey(([k]) => k))) {
    groups[g] = list
      .array()
      .map((n) => {
        const s = n.string();
        if (!names.has(s)) n.fail('not-standard-event-name', { name: s });
        return s;
      })
      .sort();
  }
  const c = r.at('custom');
  return {
    standard,
    groups,
    custom: {
      pattern: c.at('pattern').regex(),
      maxLength: limitRef(limits, c.at('maxLengthLimit')),
      maxPerAccount: limitRef(limits, c.at('maxPerAccountLimit')),
      caseInsensitive: c.at('caseInsensitive').boolean(),
      usableFor: c
        .at('usableFor')
        .array()
        .map((u) => u.oneOf(usages))
        .sort(),
    },
    suggestedExamples: r
      .at('suggestedExamples')
      .array()
      .map((n) => {
        const s = n.string();
        if (!names.has(s)) n.fail('not-standard-event-name', { name: s });
        return s;
      }),
    suggestionMaxDistance: r.at('suggestionMaxDistance').integer(),
  };
}

function window(r: Reader): RateLimitWindowIR {
  const w: RateLimitWindowIR = {
    limit: r.at('limit').integer(),
    window: r.at('window').integer(),
    per: r
      .at('per')
      .array()
      .map((p) => p.oneOf(['app', 'user', 'ad_account', 'token'])),
  };
  const unit = r.at('unit').optString();
  if (unit) w.unit = unit;
  if (w.limit <= 0 || w.window <= 0) r.fail('rate-window-not-positive');
  return w;
}

export function readRateLimits(r: Reader): RateLimitsIR {
  const u = r.at('universal');
  const t = r.at('testRequests');
  const h = r.at('headers');
  return {
    universal: {
      description: u.at('description').string(),
      trial: window(u.at('trial')),
      standard: window(u.at('standard')),
    },
    testRequests: { description: t.at('description').string(), ...window(t) },
    conversionToken: {
      description: r.at('conversionToken').at('description').string(),
      unlimited: r.at('conversionToken').at('unlimited').boolean(),
    },
    categories: r
      .at('categories')
      .array()
      .map((c) => {
        const appliesTo = c.at('appliesTo').optString();
        const headerName = c.at('headerName').optString();
        return {
          name: c.at('name').string(),
          scope: c.at('scope').string(),
          ...(appliesTo ? { appliesTo } : {}),
          ...(headerName ? { headerName } : {}),
          trial: window(c.at('trial')),
          standard: window(c.at('standard')),
        };
      })
      .sort(byKey((c) => c.name)),
    limitHeaderValue: r.at('limitHeaderValue').string(),
    headers: {
      limit: h.at('limit').string(),
      remaining: h.at('remaining').string(),
      reset: h.at('reset').string(),
      retryAfter: h.at('retryAfter').string(),
    },
  };
}

/** Parameter names of a template: {name} outside and inside [[optional]] parts. */
export function templateParams(r: Reader): string[] {
  const t = r.string();
  const opens = t.split('[[').length - 1;
  const closes = t.split(']]').length - 1;
  if (opens !== closes) r.fail('template-brackets');
  const params = new Set<string>();
  for (const m of t.matchAll(/\{([^{}]*)\}/g)) {
    const name = m[1] ?? '';
    if (!/^[a-zA-Z][a-zA-Z0-9]*$/.test(name)) r.fail('template-parameter', { param: `{${name}}` });
    params.add(name);
  }
  return [...params].sort();
}

export function readMessages(r: Reader): MessageIR[] {
  return r
    .at('messages')
    .entries()
    .map(([code, m]) => {
      if (!/^[a-z][a-z0-9_]*$/.test(code)) m.fail('message-code-case');
      const message: MessageIR = {
        code,
        kind: m.at('kind').string(),
        severity: m.at('severity').oneOf<Severity>(['failed', 'warning']),
        template: m.at('template').string(),
        params: templateParams(m.at('template')),
        description: m.at('description').string(),
      };
      if (m.at('drops').present) {
        if (message.severity !== 'warning') m.at('drops').fail('drops-not-warning');
        if (m.at('drops').boolean()) message.drops = true;
      }
      if (m.at('reasons').present) {
        if (!message.params.includes('reason'))
          m.at('reasons').fail('template-parameter-missing', {
            what: 'a template with reasons',
            param: '{reason}',
          });
        message.reasons = m
          .at('reasons')
          .entries()
          .map(([key, t]) => ({ key, template: t.string(), params: templateParams(t) }))
          .sort(byKey((x) => x.key));
      }
      return message;
    })
    .sort(byKey((m) => m.code));
}

export function readMessageJoin(r: Reader): { separator: string; overflow: string } {
  const overflow = r.at('join').at('overflow');
  if (!templateParams(overflow).includes('count'))
    overflow.fail('template-parameter-missing', { what: 'the overflow text', param: '{count}' });
  return { separator: r.at('join').at('separator').string(), overflow: overflow.string() };
}

/** C21: the words that name the shape of a value that must not be quoted; `{count}` where it has a size. */
export const SHAPE_KEYS = [
  'array',
  'boolean',
  'digest',
  'email',
  'empty',
  'integer',
  'ip',
  'null',
  'number',
  'object',
  'phone',
  'redacted',
  'string',
];
const COUNTED_SHAPES = new Set(['array', 'object', 'redacted', 'string']);

export function readValueShapes(r: Reader): Record<string, string> {
  const shapes = r.at('shapes');
  const out: Record<string, string> = {};
  for (const [key, t] of shapes.entries().sort(byKey(([k]) => k))) {
    if (!SHAPE_KEYS.includes(key)) t.fail('unknown-shape', { key, shapes: SHAPE_KEYS.join(', ') });
    if (COUNTED_SHAPES.has(key) && !templateParams(t).includes('count'))
      t.fail('template-parameter-missing', { what: 'this shape', param: '{count}' });
    if (key === 'redacted' && !templateParams(t).includes('shape'))
      t.fail('template-parameter-missing', { what: 'the redacted shape', param: '{shape}' });
    out[key] = t.string();
  }
  for (const key of SHAPE_KEYS) if (!(key in out)) shapes.fail('shape-missing', { key });
  return out;
}

/** Request-level outcomes and their problems; `{limit:KEY}` in their texts is rendered already (C108). */
export function readRequestErrors(r: Reader): { errors: RequestErrorIR[]; problems: RequestProblemIR[] } {
  const errors = r
    .at('errors')
    .array()
    .map((e) => ({
      key: e.at('key').string(),
      status: e.at('status').integer(),
      code: e.at('code').integer(),
      message: e.at('message').string(),
      when: e.at('when').string(),
      fix: e.at('fix').string(),
    }));
  const keys = new Set(errors.map((e) => e.key));
  const problems = r
    .at('problems')
    .entries()
    .map(([key, p]) => {
      const error = p.at('error').string();
      if (!keys.has(error)) p.at('error').fail('unknown-request-error', { error });
      return { key, error, template: p.at('template').string(), params: templateParams(p.at('template')) };
    })
    .sort(byKey((p) => p.key));
  // C2 order matters: errors keep the file's order.
  return { errors, problems };
}

export function readCodeList(r: Reader, listKey: string, upper: boolean): CodeEntryIR[] {
  const seen = new Set<string>();
  return r
    .at(listKey)
    .array()
    .map((e) => {
      const code = String(e.at('code').value);
      const re = upper ? /^[A-Z]{3}$/ : /^[a-z]{2}$/;
      if (!re.test(code)) e.at('code').fail('code-format', { code, list: listKey });
      if (seen.has(code)) e.at('code').fail('code-twice', { code });
      seen.add(code);
      return { code, name: e.at('name').string() };
    })
    .sort(byKey((c) => c.code));
}

export function readNamedCodes(r: Reader, listKey: string): NamedCodeIR[] {
  return r
    .at(listKey)
    .array()
    .map((e) => {
      const code = String(e.at('code').value);
      if (!/^[a-z]{2}$/.test(code)) e.at('code').fail('region-code-format', { code });
      const country = e.at('country').optString();
      return {
        code,
        name: String(e.at('name').value),
        aliases: e
          .at('aliases')
          .optArray()
          .map((a) => String(a.value).toLowerCase()),
        ...(country ? { country } : {}),
      };
    })
    .sort(byKey((c) => `${c.country ?? ''}/${c.code}`));
}

export function readNormalization(r: Reader): NormalizationIR {
  const ua = r.at('userAgent');
  return {
    kinds: r
      .at('kinds')
      .entries()
      .map(([name, k]) => ({
        name,
        steps: k.at('steps').strings(),
        description: k.at('description').string(),
      }))
      .sort(byKey((k) => k.name)),
    dateFormats: r
      .at('dateFormats')
      .array()
      .map((f) => ({
        pattern: f.at('pattern').regex(),
        order: f
          .at('order')
          .array()
          .map((o) => o.oneOf(['year', 'month', 'day'] as const)),
      })),
    gender: Object.fromEntries(
      r
        .at('gender')
        .entries()
        .map(([k, v]) => [k, v.array().map((w) => String(w.value))]),
    ),
    zipFirstFiveDigits: r.at('zipFirstFiveDigits').strings(),
    unhashed: r.at('unhashed').strings().sort(),
    personalMemberWords: r.at('personalMemberWords').strings().sort(),
    userAgent: {
      rejectValues: ua
        .at('rejectValues')
        .array()
        .map((v) => String(v.value)),
      productToken: ua.at('productToken').regex(),
      systemItemsMin: ua.at('systemItemsMin').integer(),
      systemSeparator: ua.at('systemSeparator').string(),
      compatibilityProducts: ua.at('compatibilityProducts').strings(),
      botPatterns: ua.at('botPatterns').strings(),
    },
  };
}
