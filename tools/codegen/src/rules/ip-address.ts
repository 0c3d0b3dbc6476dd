import { block, quote } from '../emitters/events-validators/code.js';
import { type BareRule, noParams, type ValueKind } from './kind.js';

export type IpAddressRule = BareRule<'ip-address', 'warning'>;

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
};
