import type { UrlRule } from '../ir/types.js';
import { block, orList, quote } from '../kit/code.js';
import { literal } from '../kit/literal.js';
import { constName } from '../kit/names.js';
import type { ValueKind } from './kind.js';

/** An absolute URL of one of the schemes given. */
export const url: ValueKind<UrlRule> = {
  place: 'field',
  codes: ['invalid_url'],
  parse: {
    params: ['schemes'],
    read: (r) => ({ kind: 'url', severity: 'failed', schemes: r.at('schemes').strings() }),
  },
  code(r, site, { scope }) {
    const re = scope.constant(
      `URL_${constName(site.owner)}_${constName(site.name)}`,
      `${scope.lib('url', 'urlMatcher')}(${literal(r.schemes)})`,
      undefined,
      `Absolute ${orList(r.schemes)} URLs (rule kind url).`,
    );
    return block(`if (!${re}.test(${site.v})) `, [
      `${scope.lib('url', 'invalidUrl')}(o, p, i, ${quote(site.name)}, ${site.v}, ${quote(orList(r.schemes))});`,
      site.stop,
    ]);
  },
  doc: (r) => `an absolute ${r.schemes.join(' or ')} URL`,
  summary: (r) => `An absolute ${r.schemes.join('/')} URL.`,
};
