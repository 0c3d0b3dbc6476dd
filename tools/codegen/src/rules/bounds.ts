import type { BoundsRule, LimitRef } from '../ir/types.js';
import { block, limitValue, quote } from '../kit/code.js';
import { limitPlain, limitText, num } from '../kit/md.js';
import { schemaAt } from '../kit/spec-at.js';
import type { Reader } from '../load/reader.js';
import { limitRef, type SchemaContext } from './context.js';
import type { ValueKind } from './kind.js';

function readLimitOrNumber(ctx: SchemaContext, node: Reader, keyword: string): LimitRef | number | undefined {
  const xl = node.at('x-limits').at(keyword);
  if (xl.present) return limitRef(ctx.limits, xl);
  const n = node.at(keyword);
  return n.present ? n.number() : undefined;
}

/** The bounds rule of a schema node's keywords (plain or `x-limits`), or undefined when it has none. */
export function boundsOf(ctx: SchemaContext, node: Reader): BoundsRule | undefined {
  const r: BoundsRule = { kind: 'bounds', severity: 'failed' };
  const minLength = node.at('minLength').optNumber();
  if (minLength !== undefined) r.minLength = minLength;
  const maxLength = readLimitOrNumber(ctx, node, 'maxLength');
  if (maxLength !== undefined) r.maxLength = maxLength;
  const minItems = readLimitOrNumber(ctx, node, 'minItems');
  if (minItems !== undefined) r.minItems = minItems;
  const maxItems = readLimitOrNumber(ctx, node, 'maxItems');
  if (maxItems !== undefined) r.maxItems = maxItems;
  const n = (keyword: string) => {
    const v = readLimitOrNumber(ctx, node, keyword);
    return typeof v === 'object' ? v.value : v;
  };
  const minimum = n('minimum');
  if (minimum !== undefined) r.minimum = minimum;
  const maximum = n('maximum');
  if (maximum !== undefined) r.maximum = maximum;
  const exclusiveMaximum = n('exclusiveMaximum');
  if (exclusiveMaximum !== undefined) r.exclusiveMaximum = exclusiveMaximum;
  return Object.keys(r).length > 2 ? r : undefined;
}

function boundText(min: number | undefined, max: number | undefined): string {
  if (min !== undefined && max !== undefined) return `between ${min} and ${max}`;
  return min !== undefined ? `at least ${min}` : `at most ${max}`;
}

/** Which bounds a code speaks of; a rule answers with it only when it has them. */
const ANSWERS: Record<string, (r: BoundsRule) => boolean> = {
  empty_string: (r) => r.minLength !== undefined,
  string_too_long: (r) => r.maxLength !== undefined,
  too_many_items: (r) => r.maxItems !== undefined,
  integer_out_of_range: (r) => r.minimum !== undefined || r.maximum !== undefined,
};

/** C87: a maxLength whose limit has no source drops the value with a warning. */
const drops = (r: BoundsRule) => typeof r.maxLength === 'object' && r.maxLength.overflow === 'drop';

/** Lengths, item counts and ranges (JSON Schema keywords; `x-limits` names a limit of limits.yaml). */
export const bounds: ValueKind<BoundsRule> = {
  place: 'value',
  codes: [
    'empty_string',
    'string_too_long',
    'string_too_long_dropped',
    'too_many_items',
    'integer_out_of_range',
  ],
  answers: (r, c) => ANSWERS[c]?.(r) ?? true,
  mayChange: drops,
  code(r, site, { ir, scope }) {
    const { v, loc, stop } = site;
    const lib = (name: string) => scope.lib('bounds', name);
    const t = site.type;
    const out: string[] = [];
    if (t.kind === 'array') {
      if (r.minItems !== undefined)
        schemaAt(ir, site.owner, site.name, 'minItems').fail('min-items-per-event');
      if (r.maxItems !== undefined) {
        const max = limitValue(r.maxItems);
        out.push(
          ...block(`if (${v}.length > ${max}) `, [
            `${lib('tooManyItems')}(o, p, i, ${quote(site.name)}, ${v}.length, ${max});`,
            stop,
          ]),
        );
      }
    } else if (t.kind === 'primitive' && (t.name === 'integer' || t.name === 'number')) {
      const tests: string[] = [];
      if (r.minimum !== undefined) tests.push(`${v} < ${r.minimum}`);
      if (r.maximum !== undefined) tests.push(`${v} > ${r.maximum}`);
      if (tests.length)
        out.push(
          ...block(`if (${tests.join(' || ')}) `, [
            `${lib('outOfRange')}(o, ${loc}, ${v}, ${quote(boundText(r.minimum, r.maximum))});`,
            stop,
          ]),
        );
    } else {
      if (r.minLength !== undefined && r.minLength > 1)
        schemaAt(ir, site.owner, site.name, 'minLength').fail('min-length-unsupported', { min: r.minLength });
      if (r.minLength === 1)
        out.push(
          ...block(`if (${v}.length === 0) `, [
            `${lib('emptyString')}(o, ${loc}, ${quote(site.expected)});`,
            stop,
          ]),
        );
      if (r.maxLength !== undefined) {
        const max = limitValue(r.maxLength);
        const check = `${v}.length > ${max} && !${lib('checkMaxLength')}(o, ${loc}, ${v}, ${max}${drops(r) ? ", 'string_too_long_dropped'" : ''})`;
        out.push(...(drops(r) ? block(`if (${check}) `, site.drop) : [`if (${check}) ${stop}`]));
      }
    }
    return out;
  },
  doc(r) {
    const parts: string[] = [];
    if (r.minLength !== undefined)
      parts.push(r.minLength === 1 ? 'not empty' : `at least ${r.minLength} characters`);
    if (r.maxLength !== undefined) parts.push(`at most ${limitText(r.maxLength)} characters`);
    if (r.minItems !== undefined) parts.push(`at least ${limitText(r.minItems)} items`);
    if (r.maxItems !== undefined) parts.push(`at most ${limitText(r.maxItems)} items`);
    if (r.minimum !== undefined) parts.push(`at least ${num(r.minimum)}`);
    if (r.maximum !== undefined) parts.push(`at most ${num(r.maximum)}`);
    return parts.join(', ');
  },
  summary(r) {
    const parts: string[] = [];
    if (r.minLength !== undefined) parts.push(`at least ${r.minLength} characters`);
    if (r.maxLength !== undefined) parts.push(`at most ${limitPlain(r.maxLength)} characters`);
    if (r.minItems !== undefined) parts.push(`at least ${limitPlain(r.minItems)} items`);
    if (r.maxItems !== undefined) parts.push(`at most ${limitPlain(r.maxItems)} items`);
    if (r.minimum !== undefined) parts.push(`>= ${r.minimum}`);
    if (r.maximum !== undefined) parts.push(`<= ${r.maximum}`);
    return `Bounds: ${parts.join(', ')}.`;
  },
};
