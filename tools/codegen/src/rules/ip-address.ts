import type { IpAddressRule } from '../ir/types.js';
import { block, quote } from '../kit/code.js';
import { noParams, type ValueKind } from './kind.js';

/** A valid IPv4 or IPv6 address, not all zeros; anything else is dropped with a warning saying why. */
export const ipAddress: ValueKind<IpAddressRule> = {
  place: 'field',
  codes: ['invalid_ip_dropped'],
  reasons: { invalid_ip_dropped: ['all_zeros', 'invalid', 'user_agent'] },
  parse: noParams({ kind: 'ip-address', severity: 'warning' }),
  mayChange: () => true,
  code: (_r, site, { scope }) =>
    block('', [
      `const r = ${scope.lib('ip', 'ipProblem')}(${site.v});`,
      ...block('if (r !== undefined) ', [
        `${scope.lib('ip', 'ipDropped')}(o, p, i, ${quote(site.name)}, r);`,
        ...site.drop,
      ]),
    ]),
  doc: () => 'a valid IPv4 or IPv6 address, not all zeros',
  summary: () => 'A valid IPv4 or IPv6 address, not all zeros; otherwise dropped with a warning.',
};
