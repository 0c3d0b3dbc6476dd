import type { FieldIR, MessageIR, RecommendedIR, RuleIR, TypeIR } from '../../ir/types.js';
import { code, link, words } from '../../kit/md.js';
import { kindOf } from '../../rules/index.js';
import type { DocsContext } from './context.js';

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
  return kindOf(r).doc(r, ctx);
}

/**
 * The per-event codes a rule can answer with: the codes of its kind at its severity (or the severities the
 * kind names for it, C120), narrowed for the kinds whose codes depend on which bounds the rule has.
 * Request-level rules answer with no per-event code.
 */
export function ruleCodes(r: RuleIR, ctx: DocsContext): MessageIR[] {
  const k = kindOf(r);
  const severities: readonly string[] = k.severities?.(r) ?? [r.severity];
  return ctx.ir.messages.filter(
    (m) => m.kind === r.kind && severities.includes(m.severity) && (k.answers?.(r, m.code) ?? true),
  );
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
