import type { PatternRule } from '../ir/types.js';
import { block, quote, regexLiteral } from '../kit/code.js';
import { code } from '../kit/md.js';
import { constName } from '../kit/names.js';
import type { ValueKind } from './kind.js';

/** The `pattern` keyword; `x-severity: warning` drops a mismatching value instead of failing the event. */
export const pattern: ValueKind<PatternRule> = {
  place: 'value',
  codes: ['pattern_mismatch', 'pattern_mismatch_dropped'],
  mayChange: (r) => r.severity === 'warning',
  code(r, site, { scope }) {
    const re = scope.constant(
      `PATTERN_${constName(site.owner)}_${constName(site.name)}`,
      regexLiteral(r.pattern),
    );
    const c = r.severity === 'warning' ? 'pattern_mismatch_dropped' : 'pattern_mismatch';
    return block(`if (!${re}.test(${site.v})) `, [
      `${scope.lib('pattern', 'patternMismatch')}(o, '${c}', ${site.loc}, ${site.v}, ${quote(site.expected)});`,
      ...(r.severity === 'warning' ? site.drop : [site.stop]),
    ]);
  },
  doc: (r) => `matches ${code(r.pattern)}`,
  summary: (r) =>
    `Matches \`${r.pattern}\`${r.severity === 'warning' ? ' (otherwise dropped with a warning)' : ''}.`,
};
