import type { DecimalStringRule } from '../ir/types.js';
import { quote } from '../kit/code.js';
import { limitPlain, limitText, num } from '../kit/md.js';
import { limitRef } from './context.js';
import type { ValueKind } from './kind.js';

/** Which bounds a code speaks of; a rule answers with it only when it has them. */
const ANSWERS: Record<string, (r: DecimalStringRule) => boolean> = {
  invalid_decimal: () => true,
  decimal_too_small: (r) => r.exclusiveMinimum !== undefined || r.minimum !== undefined,
  decimal_too_large: (r) => r.maximum !== undefined,
};

/** A string holding a finite decimal within bounds (money: `custom_data.value`). */
export const decimalString: ValueKind<DecimalStringRule> = {
  place: 'value',
  codes: ['invalid_decimal', 'decimal_too_small', 'decimal_too_large'],
  answers: (r, c) => ANSWERS[c]?.(r) ?? true,
  parse: {
    params: ['exclusiveMinimum', 'minimum', 'maximumLimit'],
    read(r, ctx) {
      const rule: DecimalStringRule = { kind: 'decimal-string', severity: 'failed' };
      const exMin = r.at('exclusiveMinimum').optNumber();
      if (exMin !== undefined) rule.exclusiveMinimum = exMin;
      const min = r.at('minimum').optNumber();
      if (min !== undefined) rule.minimum = min;
      if (r.at('maximumLimit').present) rule.maximum = limitRef(ctx.limits, r.at('maximumLimit'));
      return rule;
    },
  },
  code(r, site, { scope }) {
    const args = [r.exclusiveMinimum, r.minimum, r.maximum?.value].map((n) =>
      n === undefined ? 'undefined' : String(n),
    );
    return [
      `if (!${scope.lib('decimal', 'checkDecimal')}(o, ${site.loc}, ${site.v}, ${quote(site.expected)}, ${args.join(', ')})) ${site.stop}`,
    ];
  },
  doc(r) {
    const parts = ['a string holding a finite decimal'];
    if (r.exclusiveMinimum !== undefined) parts.push(`greater than ${num(r.exclusiveMinimum)}`);
    if (r.minimum !== undefined) parts.push(`at least ${num(r.minimum)}`);
    if (r.maximum) parts.push(`at most ${limitText(r.maximum)}`);
    return parts.join(', ');
  },
  summary(r) {
    const parts = ['A string holding a finite decimal'];
    if (r.exclusiveMinimum !== undefined) parts.push(`> ${r.exclusiveMinimum}`);
    if (r.minimum !== undefined) parts.push(`>= ${r.minimum}`);
    if (r.maximum) parts.push(`<= ${limitPlain(r.maximum)}`);
    return `${parts.join(', ')}.`;
  },
};
