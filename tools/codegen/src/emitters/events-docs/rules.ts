import type { FieldIR, LimitRef, MessageIR, RecommendedIR, RuleIR, TypeIR } from '../../ir/types.js';
import type { DocsContext } from './context.js';
import { code, duration, link, num, words } from './md.js';

/** A limit with its key, linked to the limits page, so a reader can find where it is set. */
export function limitText(v: LimitRef | number): string {
  if (typeof v === 'number') return num(v);
  return `${num(v.value)} (${link(code(v.key), 'limits', v.key)})`;
}

export function typeText(t: TypeIR): string {
  switch (t.kind) {
    case 'primitive':
      return t.name;
    case 'array':
      return `array of ${typeText(t.items)}`;
    case 'ref':
      return t.target === 'enum' ? `string (${t.name})` : `object (${t.name})`;
  }
}

export function fieldType(f: FieldIR): string {
  return `${typeText(f.type)}${f.nullable ? ', nullable' : ''}`;
}

export function recommendedText(r: RecommendedIR): string {
  const as = r.actionSources === 'all' ? 'every action source' : words(r.actionSources.map(code), 'or');
  const en = r.eventNames ? ` on ${words(r.eventNames.map(code), 'or')} events` : '';
  return `recommended for ${as}${en} (weight ${r.weight}, C88)`;
}

/** What a rule checks, in words; undefined for rules the Type and Required columns already say. */
export function ruleText(r: RuleIR, ctx: DocsContext): string | undefined {
  switch (r.kind) {
    case 'required':
    case 'type':
      return undefined;
    case 'enum':
      return `one of ${r.values.map(code).join(', ')}${r.caseInsensitive ? ' (case-insensitive)' : ''}`;
    case 'bounds': {
      const parts: string[] = [];
      if (r.minLength !== undefined)
        parts.push(r.minLength === 1 ? 'not empty' : `at least ${r.minLength} characters`);
      if (r.maxLength !== undefined) parts.push(`at most ${limitText(r.maxLength)} characters`);
      if (r.minItems !== undefined) parts.push(`at least ${limitText(r.minItems)} items`);
      if (r.maxItems !== undefined) parts.push(`at most ${limitText(r.maxItems)} items`);
      if (r.minimum !== undefined) parts.push(`at least ${num(r.minimum)}`);
      if (r.maximum !== undefined) parts.push(`at most ${num(r.maximum)}`);
      return parts.join(', ');
    }
    case 'pattern':
      return `matches ${code(r.pattern)}`;
    case 'event-name':
      return `a ${link('standard event name', 'event-names')} or a ${link('custom event name', 'custom-events')} registered for the ad account`;
    case 'unix-seconds':
      return `Unix seconds; at most ${duration(r.maxAge.value)} old (${limitText(r.maxAge)} s) and ${duration(r.maxFuture.value)} ahead (${limitText(r.maxFuture)} s); ${num(r.milliseconds.value)} or more is taken for milliseconds`;
    case 'url':
      return `an absolute ${r.schemes.join(' or ')} URL`;
    case 'code-list': {
      const n = ctx.ir.codeLists[r.list].length;
      return `a code of the ${link(`${r.list} list`, 'code-lists', r.list)} (${num(n)} codes, ${r.case} case)`;
    }
    case 'ip-address':
      return 'a valid IPv4 or IPv6 address, not all zeros';
    case 'user-agent': {
      const ua = ctx.ir.normalization.userAgent;
      return `a full browser User-Agent with product/version tokens; never ${words(
        ua.rejectValues.map((v) => code(v)),
        'or',
      )}; no bots (${ua.botPatterns.map(code).join(', ')})`;
    }
    case 'sha256-hex':
      return 'a lower-case SHA-256 hex digest (64 characters)';
    case 'decimal-string': {
      const parts = ['a string holding a finite decimal'];
      if (r.exclusiveMinimum !== undefined) parts.push(`greater than ${num(r.exclusiveMinimum)}`);
      if (r.minimum !== undefined) parts.push(`at least ${num(r.minimum)}`);
      if (r.maximum) parts.push(`at most ${limitText(r.maximum)}`);
      return parts.join(', ');
    }
    case 'unknown-keys':
      return r.severity === 'request'
        ? 'unknown keys reject the whole request'
        : r.severity === 'failed'
          ? 'unknown keys fail the event'
          : 'unknown keys are dropped with a warning';
    case 'require-any-of':
      return `needs ${words(
        r.alternatives.map((alt) => words(alt.map(code))),
        'or',
      )}`;
    case 'default-from-context':
      return `${code(r.when)} without ${code(r.field)} uses the ad account's ${r.context}`;
    case 'ids-in-items':
      return `every ${code(r.ids)} entry should be the ${code(r.key)} of an entry of ${code(r.items)}`;
    case 'positive-for-events':
      return `${code(`${r.in}.${r.field}`)} must be greater than 0 on ${words(r.eventNames.map(code), 'or')} events (group ${code(r.group)}); zero is accepted on other events (C86)`;
    case 'agrees-with':
      return `${code(`${r.in}.${r.field}`)} is kept only when it equals ${code(r.with)}${r.except.length ? `, and ${code(r.with)} is not ${words(r.except.map(code), 'or')}` : ''}`;
    case 'recommended-fields':
      return 'below the match-quality threshold, one warning names the missing recommended fields that raise it most (C88)';
    case 'dedup':
      return `(${r.key.map(code).join(', ')}) is deduplicated within ${duration(r.window.value)} (${limitText(r.window)} s)`;
  }
}

const BOUND_CODES: Record<string, (r: Extract<RuleIR, { kind: 'bounds' }>) => boolean> = {
  empty_string: (r) => r.minLength !== undefined,
  string_too_long: (r) => r.maxLength !== undefined,
  too_many_items: (r) => r.maxItems !== undefined,
  integer_out_of_range: (r) => r.minimum !== undefined || r.maximum !== undefined,
};

const DECIMAL_CODES: Record<string, (r: Extract<RuleIR, { kind: 'decimal-string' }>) => boolean> = {
  invalid_decimal: () => true,
  decimal_too_small: (r) => r.exclusiveMinimum !== undefined || r.minimum !== undefined,
  decimal_too_large: (r) => r.maximum !== undefined,
};

/**
 * The per-event codes a rule can answer with: the codes of its kind at its severity, narrowed for the kinds
 * whose codes depend on which bounds the rule has. Request-level rules answer with no per-event code.
 */
export function ruleCodes(r: RuleIR, ctx: DocsContext): MessageIR[] {
  const ofKind = ctx.ir.messages.filter((m) => m.kind === r.kind && m.severity === r.severity);
  if (r.kind === 'bounds') return ofKind.filter((m) => BOUND_CODES[m.code]?.(r) ?? true);
  if (r.kind === 'decimal-string') return ofKind.filter((m) => DECIMAL_CODES[m.code]?.(r) ?? true);
  return ofKind;
}

/** `**failed** [`code`](event-errors.md#code): `template`` for each code a list of rules can answer with. */
export function outcomes(rules: RuleIR[], ctx: DocsContext): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const r of rules)
    for (const m of ruleCodes(r, ctx)) {
      if (seen.has(m.code)) continue;
      seen.add(m.code);
      out.push(`**${m.severity}** ${link(code(m.code), 'event-errors', m.code)}: ${code(m.template)}`);
    }
  return out;
}
