import type { IR, UserAgentRule } from '../ir/types.js';
import { block, escapeRegex, quote, regexLiteral } from '../kit/code.js';
import { literal } from '../kit/literal.js';
import { code, words } from '../kit/md.js';
import type { FileScope } from '../kit/scope.js';
import { noParams, type ValueKind } from './kind.js';

/** The user-agent rule constant (spec/data/normalization.yaml userAgent), compiled once. */
function ruleConstant(ir: IR, scope: FileScope): string {
  const ua = ir.normalization.userAgent;
  const reject = ua.rejectValues.map((v) => v.toLowerCase());
  const init = [
    '{',
    `  reject: new Set(${literal(reject)}),`,
    `  rejectMaxLength: ${Math.max(...reject.map((v) => v.length))},`,
    `  bot: ${regexLiteral(ua.botPatterns.map(escapeRegex).join('|'), 'i')},`,
    `  productToken: ${regexLiteral(ua.productToken)},`,
    `  systemItemsMin: ${ua.systemItemsMin},`,
    `  systemSeparator: ${literal(ua.systemSeparator)},`,
    `  productTokens: ${regexLiteral(ua.productToken, 'g')},`,
    `  compatibilityProducts: new Set(${literal(ua.compatibilityProducts.map((p) => p.toLowerCase()))}),`,
    '}',
  ].join('\n');
  scope.lib('user-agent', 'UserAgentRule', true);
  return scope.constant(
    'USER_AGENT',
    init,
    'UserAgentRule',
    'The user-agent rule of C4 and seed 2.4 (spec/data/normalization.yaml).',
  );
}

/** A full browser User-Agent (C4, C22, C85): placeholders, bots and bare tokens are dropped with a reason. */
export const userAgent: ValueKind<UserAgentRule> = {
  place: 'field',
  codes: ['invalid_user_agent_dropped'],
  reasons: {
    invalid_user_agent_dropped: [
      'bot',
      'empty',
      'few_system_items',
      'ip_address',
      'no_browser',
      'no_product_token',
      'placeholder',
    ],
  },
  parse: noParams({ kind: 'user-agent', severity: 'warning' }),
  mayChange: () => true,
  code: (_r, site, { ir, scope }) =>
    block('', [
      `const r = ${scope.lib('user-agent', 'userAgentProblem')}(${site.v}, ${ruleConstant(ir, scope)});`,
      ...block('if (r !== undefined) ', [
        `${scope.lib('user-agent', 'userAgentDropped')}(o, p, i, ${quote(site.name)}, r);`,
        ...site.drop,
      ]),
    ]),
  doc(_r, { ir }) {
    const ua = ir.normalization.userAgent;
    return `a full browser User-Agent with product/version tokens; never ${words(
      ua.rejectValues.map((v) => code(v)),
      'or',
    )}; no bots (${ua.botPatterns.map(code).join(', ')})`;
  },
  summary: () => 'A full browser User-Agent; empty, `Other` or bot values are dropped with a warning.',
};
