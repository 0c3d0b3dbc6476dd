import type { Sha256HexRule } from '../ir/types.js';
import { block } from '../kit/code.js';
import { noParams, type ValueKind } from './kind.js';

/** A SHA-256 hex digest (C4): other values are dropped with a warning, upper case is lowered. */
export const sha256Hex: ValueKind<Sha256HexRule> = {
  place: 'value',
  codes: ['hash_dropped'],
  parse: noParams({ kind: 'sha256-hex', severity: 'warning' }),
  mayChange: () => true,
  code: (_r, site, { scope }) =>
    block('', [
      `const h = ${scope.lib('sha256-hex', 'digestState')}(${site.v});`,
      ...block('if (h === 0) ', [`${scope.lib('sha256-hex', 'hashDropped')}(o, ${site.loc});`, ...site.drop]),
      ...block('if (h === 2) ', site.set(`${site.v}.toLowerCase()`)),
    ]),
  doc: () => 'a lower-case SHA-256 hex digest (64 characters)',
  summary: () => 'A lower-case SHA-256 hex digest (64 characters); other values are dropped with a warning.',
};
