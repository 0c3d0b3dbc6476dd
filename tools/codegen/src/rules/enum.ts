import type { EnumRule } from '../ir/types.js';
import { block, quote } from '../kit/code.js';
import { literal } from '../kit/literal.js';
import { code } from '../kit/md.js';
import { constName } from '../kit/names.js';
import type { ValueKind } from './kind.js';

/** Up to this many values are compared inline; more are looked up in a hoisted Set. */
const INLINE_MAX = 8;

/** One of the values of an enum schema; `x-case-insensitive` matches any case and stores the canonical one. */
export const enumRule: ValueKind<EnumRule> = {
  place: 'value',
  codes: ['invalid_enum'],
  mayChange: (r) => r.caseInsensitive,
  code(r, site, { scope }) {
    const { v, loc, stop } = site;
    const invalid = scope.lib('enum', 'invalidEnum');
    const allowed = quote(r.values.map((x) => JSON.stringify(x)).join(', '));
    if (r.caseInsensitive) {
      const values = scope.constant(`VALUES_${constName(r.enum)}`, literal(r.values), 'readonly string[]');
      return block('', [
        `const e = ${scope.lib('enum', 'caseInsensitiveEnum')}(${v}, ${values});`,
        ...block('if (e === undefined) ', [`${invalid}(o, ${loc}, ${v}, ${allowed});`, stop]),
        ...block(`if (e !== ${v}) `, site.set('e')),
      ]);
    }
    const test =
      r.values.length <= INLINE_MAX
        ? r.values.map((x) => `${v} !== ${quote(x)}`).join(' && ')
        : `!${scope.constant(`ENUM_${constName(r.enum)}`, `new Set(${literal(r.values)})`, 'ReadonlySet<unknown>')}.has(${v})`;
    return block(`if (${test}) `, [`${invalid}(o, ${loc}, ${v}, ${allowed});`, stop]);
  },
  doc: (r) => `one of ${r.values.map(code).join(', ')}${r.caseInsensitive ? ' (case-insensitive)' : ''}`,
  summary: (r) =>
    `One of ${r.values.map((v) => `\`${v}\``).join(', ')}${r.caseInsensitive ? ' (case-insensitive)' : ''}.`,
};
