import type { DefaultFromContextRule } from '../ir/types.js';
import { block, quote } from '../kit/code.js';
import { code } from '../kit/md.js';
import { type ObjectKind, stringParams } from './kind.js';

/** `when` given without `field`: the field takes the ad account's value (its currency), with a warning. */
export const defaultFromContext: ObjectKind<DefaultFromContextRule> = {
  place: 'object',
  codes: ['currency_defaulted'],
  parse: {
    params: ['field', 'when', 'context'],
    read: (r) => ({
      kind: 'default-from-context',
      severity: 'warning',
      ...stringParams(r, ['field', 'when']),
      context: r.at('context').oneOf(['currency'] as const),
    }),
  },
  names: (r) => [r.field, r.when],
  code: (r, _schema, { scope }) =>
    block(`if (s[${quote(r.when)}] != null && s[${quote(r.field)}] == null) `, [
      `${scope.lib('default-from-context', 'defaultFromContext')}(o, p, i, ${quote(r.field)}, ${quote(r.when)}, c.${r.context});`,
      ...block(`if (c.${r.context} !== undefined) `, [
        'if (t === s) t = { ...s };',
        `t[${quote(r.field)}] = c.${r.context};`,
      ]),
    ]),
  doc: (r) => `${code(r.when)} without ${code(r.field)} uses the ad account's ${r.context}`,
  summary: () => undefined,
};
