import type { CodeListRule, Severity } from '../ir/types.js';
import { block, quote } from '../kit/code.js';
import { link, num } from '../kit/md.js';
import { constName } from '../kit/names.js';
import type { ValueKind } from './kind.js';

/** The constant of each code list, as events-types exports it. */
const CONSTANTS: Record<CodeListRule['list'], string> = {
  currencies: 'CURRENCY_CODES',
  languages: 'LANGUAGE_CODES',
};

/** A code of a list of spec/data (ISO currencies, languages), in the case given. */
export const codeList: ValueKind<CodeListRule> = {
  place: 'value',
  codes: ['invalid_code', 'invalid_code_dropped'],
  parse: {
    params: ['list', 'severity', 'case'],
    read: (r) => ({
      kind: 'code-list',
      severity: r.at('severity').present ? r.at('severity').oneOf<Severity>(['failed', 'warning']) : 'failed',
      list: r.at('list').oneOf(['currencies', 'languages'] as const),
      case: r.at('case').oneOf(['upper', 'lower'] as const),
    }),
  },
  mayChange: (r) => r.severity === 'warning',
  code(r, site, { scope }) {
    const list = scope.use('@org/events-types', CONSTANTS[r.list]);
    const set = scope.constant(`CODES_${constName(r.list)}`, `new Set(${list})`, 'ReadonlySet<string>');
    const c = r.severity === 'warning' ? 'invalid_code_dropped' : 'invalid_code';
    return block(`if (!${set}.has(${site.v})) `, [
      `${scope.lib('code-list', 'checkCode')}(o, '${c}', ${site.loc}, ${site.v}, ${set}, ${r.case === 'upper'}, ${quote(site.expected)});`,
      ...(r.severity === 'warning' ? site.drop : [site.stop]),
    ]);
  },
  doc: (r, { ir }) =>
    `a code of the ${link(`${r.list} list`, 'code-lists', r.list)} (${num(ir.codeLists[r.list].length)} codes, ${r.case} case)`,
  summary: (r) =>
    `A code of the ${r.list} list (${r.case} case)${r.severity === 'warning' ? '; otherwise dropped with a warning' : ''}.`,
};
