import type { LimitIR } from '../ir/types.js';
import { LIMIT_FORMATS, type LimitFormat, TIME_UNITS } from '../kit/units.js';
import type { LoadedSpec } from '../load/load-spec.js';
import { SpecError } from '../load/spec-error.js';

/**
 * `{limit:KEY}` anywhere in openapi.yaml or a data file, and `{value}` in a limit's own description, with an
 * optional `|format` (C108). `{value}` elsewhere is a message parameter and is left alone.
 */
const LIMIT_REF = /\{limit:([a-z0-9_]+)(?:\|([a-z]+))?\}/g;
const OWN_VALUE = /\{value(?:\|([a-z]+))?\}/g;

type Where = { file: string; path: string };

function formatted(l: LimitIR, format: string | undefined, at: Where): string {
  const name = (format ?? 'plain') as LimitFormat;
  if (!Object.hasOwn(LIMIT_FORMATS, name))
    throw new SpecError(at.file, at.path, 'unknown-limit-format', {
      format: String(format),
      key: l.key,
      formats: Object.keys(LIMIT_FORMATS).join(', '),
    });
  if (name === 'duration' && !TIME_UNITS.includes(l.unit))
    throw new SpecError(at.file, at.path, 'duration-of-non-time', { key: l.key, unit: l.unit });
  return LIMIT_FORMATS[name](l);
}

function renderText(text: string, limits: Map<string, LimitIR>, own: LimitIR | undefined, at: Where): string {
  const out = text.replace(LIMIT_REF, (_, key: string, format?: string) => {
    const l = limits.get(key);
    if (!l) throw new SpecError(at.file, at.path, 'unknown-limit', { key });
    return formatted(l, format, at);
  });
  return own ? out.replace(OWN_VALUE, (_, format?: string) => formatted(own, format, at)) : out;
}

/** A copy of `value` with every string rendered; `path` as Reader writes it, so errors point where Reader's do. */
function renderTree(value: unknown, path: string, visit: (s: string, path: string) => string): unknown {
  if (typeof value === 'string') return visit(value, path);
  if (Array.isArray(value)) return value.map((v, i) => renderTree(v, `${path}[${i}]`, visit));
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, renderTree(v, path ? `${path}.${k}` : k, visit)]),
    );
  return value;
}

/** The key of the limit whose description is at `path` of `file`, where `{value}` stands for that limit. */
export function ownLimitKey(spec: LoadedSpec, file: string, path: string): string | undefined {
  return file === spec.data.limits?.file ? /^limits\.([a-z0-9_]+)\.description$/.exec(path)?.[1] : undefined;
}

/**
 * The spec with its prose templates replaced by the values of limits.yaml, so every reader of the spec
 * (the IR, the served OpenAPI document) sees text that follows the table. The decision records are left as
 * written: each states what was decided when it was.
 */
export function renderProse(spec: LoadedSpec, limits: LimitIR[]): LoadedSpec {
  const byKey = new Map(limits.map((l) => [l.key, l]));
  const ownOf = (file: string, path: string) => byKey.get(ownLimitKey(spec, file, path) ?? '');
  const render = (file: string, value: unknown) =>
    renderTree(value, '', (s, path) =>
      s.includes('{') ? renderText(s, byKey, ownOf(file, path), { file, path }) : s,
    );
  return {
    ...spec,
    openapi: render(spec.openapiFile, spec.openapi) as Record<string, unknown>,
    data: Object.fromEntries(
      Object.entries(spec.data).map(([k, d]) => [k, { file: d.file, value: render(d.file, d.value) }]),
    ),
  };
}
