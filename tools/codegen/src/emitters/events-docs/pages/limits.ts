import type { LimitRef, RuleIR } from '../../../ir/types.js';
import { blocks, code, duration, link, num, table, words } from '../../../kit/md.js';
import type { DocsContext } from '../context.js';
import { linkDecisionIds } from './decisions.js';
import type { Page } from './page.js';

function limitRefs(r: RuleIR): string[] {
  const keys: string[] = [];
  for (const v of Object.values(r))
    if (v && typeof v === 'object' && 'key' in v) keys.push((v as LimitRef).key);
  return keys;
}

/** Where each limit is used: field paths whose rules name it, and the custom-event rule. */
function usedBy(ctx: DocsContext): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const add = (key: string, where: string) => {
    const l = out.get(key) ?? [];
    if (!l.includes(where)) l.push(where);
    out.set(key, l);
  };
  for (const s of ctx.ir.schemas) {
    const sec = ctx.sections.find((x) => x.schema.name === s.name);
    const prefix = sec ? sec.prefix : `${s.name}.`;
    for (const r of s.rules) for (const k of limitRefs(r)) add(k, code(s.name));
    for (const f of s.fields)
      for (const r of [...f.rules, ...f.itemRules])
        for (const k of limitRefs(r)) add(k, code(`${prefix}${f.name}`));
  }
  const c = ctx.ir.eventNames.custom;
  add(c.maxLength.key, link('custom event names', 'custom-events'));
  add(c.maxPerAccount.key, link('custom event types', 'custom-events'));
  return out;
}

function valueText(value: number, unit: string): string {
  if (unit === 'seconds') return `${num(value)} s (${duration(value)})`;
  if (unit === 'bytes') return `${num(value)} bytes`;
  if (unit === 'milliseconds') return `${num(value)} ms`;
  return num(value);
}

export const limitsPage: Page = {
  slug: 'limits',
  title: 'Limits',
  summary:
    'Every limit of the service: batch and body size, string lengths, time windows, custom event caps.',
  body(ctx: DocsContext) {
    const used = usedBy(ctx);
    const records = new Set(ctx.ir.decisions.map((d) => d.id));
    return blocks(
      `Every limit lives in the spec (${code('spec/data/limits.yaml')}) and reaches the validators, the server and these pages from there. All limits may change without notice (seed 8 rule 4, seed 9). Rate limits are on ${link('Rate limits', 'rate-limits')}.`,
      table(
        ['Limit', 'Value', 'Unit', 'What it bounds', 'Source', 'Used by'],
        ctx.ir.limits.map((l) => [
          `<a id="${l.key}"></a>${code(l.key)}`,
          valueText(l.value, l.unit),
          l.unit,
          l.description,
          linkDecisionIds(l.source, records),
          words(used.get(l.key) ?? []),
        ]),
      ),
    );
  },
};
