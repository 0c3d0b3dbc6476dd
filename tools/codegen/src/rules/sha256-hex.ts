import type { Sha256HexRule } from '../ir/types.js';
import { block } from '../kit/code.js';
import { noParams, type ValueKind } from './kind.js';

/**
 * Codes of the hashing gateway (C125), answered by the server, not by the rule: a raw value it could not
 * normalize (a reason per normalization kind), and the request log's note of a field it hashed.
 */
const GATEWAY_CODES = ['not_normalizable_dropped', 'hashed_on_arrival'];

/** A SHA-256 hex digest (C4): other values are dropped with a warning, upper case is lowered. */
export const sha256Hex: ValueKind<Sha256HexRule> = {
  place: 'value',
  codes: ['hash_dropped', ...GATEWAY_CODES],
  reasons: {
    not_normalizable_dropped: [
      'city',
      'country',
      'date',
      'email',
      'external_id',
      'gender',
      'maid',
      'name',
      'phone',
      'state',
      'zip',
    ],
  },
  // The field tables list what every sender meets; the gateway's codes are on their own page (C125).
  answers: (_r, c) => !GATEWAY_CODES.includes(c),
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
