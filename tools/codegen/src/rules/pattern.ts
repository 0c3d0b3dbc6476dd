import { code } from '../emitters/events-docs/md.js';
import { block, quote, regexLiteral } from '../emitters/events-validators/code.js';
import { constName } from '../emitters/events-validators/names.js';
import type { Severity } from '../ir/types.js';
import type { ValueKind } from './kind.js';

export interface PatternRule {
  kind: 'pattern';
  severity: Severity;
  pattern: string;
}

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
};
