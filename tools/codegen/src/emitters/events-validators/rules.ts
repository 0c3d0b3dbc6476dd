import { literal } from '../../emit/literal.js';
import type { IR, RuleIR } from '../../ir/types.js';
import { block, escapeRegex, limitValue, orList, quote, regexLiteral } from './code.js';
import type { FileScope } from './scope.js';
import type { Site } from './site.js';

/** The constant of a code list of the spec, as events-types exports it. */
const CODE_LISTS: Record<string, string> = { currencies: 'CURRENCY_CODES', languages: 'LANGUAGE_CODES' };

const ENUM_INLINE_MAX = 8;

/** `ConversionEvent` -> `CONVERSION_EVENT`, `event_source_url` -> `EVENT_SOURCE_URL`. */
export function constName(s: string): string {
  return s
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .toUpperCase();
}

function fieldOnly(r: RuleIR, site: Site): void {
  if (site.item)
    throw new Error(`events-validators: rule kind ${r.kind} on array items (${site.name}) is not supported`);
}

function boundText(min: number | undefined, max: number | undefined): string {
  if (min !== undefined && max !== undefined) return `between ${min} and ${max}`;
  return min !== undefined ? `at least ${min}` : `at most ${max}`;
}

/** The user-agent rule constant (spec/data/normalization.yaml userAgent), compiled once. */
function userAgentRule(ir: IR, scope: FileScope): string {
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

/**
 * Code checking one rule on a value whose JSON type is already right. Rules of the kinds handled elsewhere
 * (required, type; object-level kinds) emit nothing here.
 */
export function ruleCode(ir: IR, r: RuleIR, site: Site, scope: FileScope): string[] {
  const { v, loc, stop } = site;
  const lib = (file: string, name: string) => scope.lib(file, name);
  switch (r.kind) {
    case 'required':
    case 'type':
      return [];
    case 'enum': {
      const allowed = quote(r.values.map((x) => JSON.stringify(x)).join(', '));
      if (r.caseInsensitive) {
        const values = scope.constant(`VALUES_${constName(r.enum)}`, literal(r.values), 'readonly string[]');
        return block('', [
          `const e = ${lib('enum', 'caseInsensitiveEnum')}(${v}, ${values});`,
          ...block('if (e === undefined) ', [
            `${lib('enum', 'invalidEnum')}(o, ${loc}, ${v}, ${allowed});`,
            stop,
          ]),
          ...block(`if (e !== ${v}) `, site.set('e')),
        ]);
      }
      const test =
        r.values.length <= ENUM_INLINE_MAX
          ? r.values.map((x) => `${v} !== ${quote(x)}`).join(' && ')
          : `!${scope.constant(`ENUM_${constName(r.enum)}`, `new Set(${literal(r.values)})`, 'ReadonlySet<unknown>')}.has(${v})`;
      return block(`if (${test}) `, [`${lib('enum', 'invalidEnum')}(o, ${loc}, ${v}, ${allowed});`, stop]);
    }
    case 'bounds': {
      const t = site.type;
      const out: string[] = [];
      if (t.kind === 'array') {
        if (r.minItems !== undefined)
          throw new Error(`events-validators: minItems on ${site.name} is not supported per event`);
        if (r.maxItems !== undefined) {
          const max = limitValue(r.maxItems);
          out.push(
            ...block(`if (${v}.length > ${max}) `, [
              `${lib('bounds', 'tooManyItems')}(o, p, i, ${quote(site.name)}, ${v}.length, ${max});`,
              stop,
            ]),
          );
        }
      } else if (t.kind === 'primitive' && (t.name === 'integer' || t.name === 'number')) {
        const tests: string[] = [];
        if (r.minimum !== undefined) tests.push(`${v} < ${r.minimum}`);
        if (r.maximum !== undefined) tests.push(`${v} > ${r.maximum}`);
        if (tests.length)
          out.push(
            ...block(`if (${tests.join(' || ')}) `, [
              `${lib('bounds', 'outOfRange')}(o, ${loc}, ${v}, ${quote(boundText(r.minimum, r.maximum))});`,
              stop,
            ]),
          );
      } else {
        if (r.minLength !== undefined && r.minLength > 1)
          throw new Error(
            `events-validators: minLength ${r.minLength} on ${site.name}: only minLength 1 (empty_string) is supported`,
          );
        if (r.minLength === 1)
          out.push(
            ...block(`if (${v}.length === 0) `, [
              `${lib('bounds', 'emptyString')}(o, ${loc}, ${quote(site.expected)});`,
              stop,
            ]),
          );
        if (r.maxLength !== undefined) {
          const max = limitValue(r.maxLength);
          // C87: a cap with no source drops the value with a warning; one Pinterest documents fails the event.
          const drops = typeof r.maxLength !== 'number' && r.maxLength.overflow === 'drop';
          const check = `${v}.length > ${max} && !${lib('bounds', 'checkMaxLength')}(o, ${loc}, ${v}, ${max}${drops ? ", 'string_too_long_dropped'" : ''})`;
          out.push(...(drops ? block(`if (${check}) `, site.drop) : [`if (${check}) ${stop}`]));
        }
      }
      return out;
    }
    case 'pattern': {
      const re = scope.constant(
        `PATTERN_${constName(site.owner)}_${constName(site.name)}`,
        regexLiteral(r.pattern),
      );
      const code = r.severity === 'warning' ? 'pattern_mismatch_dropped' : 'pattern_mismatch';
      return block(`if (!${re}.test(${v})) `, [
        `${lib('pattern', 'patternMismatch')}(o, '${code}', ${loc}, ${v}, ${quote(site.expected)});`,
        ...(r.severity === 'warning' ? site.drop : [stop]),
      ]);
    }
    case 'event-name':
      fieldOnly(r, site);
      return block('', [
        `const e = ${lib('event-name', 'checkEventName')}(o, p, i, ${quote(site.name)}, ${v}, c);`,
        `if (e === undefined) ${stop}`,
        ...block(`if (e !== ${v}) `, site.set('e')),
      ]);
    case 'unix-seconds':
      fieldOnly(r, site);
      return [
        `${lib('unix-seconds', 'checkUnixSeconds')}(o, p, i, ${quote(site.name)}, ${v}, c.now, ${r.maxAge.value}, ${r.maxFuture.value}, ${r.milliseconds.value});`,
      ];
    case 'url': {
      fieldOnly(r, site);
      const re = scope.constant(
        `URL_${constName(site.owner)}_${constName(site.name)}`,
        `${lib('url', 'urlMatcher')}(${literal(r.schemes)})`,
        undefined,
        `Absolute ${orList(r.schemes)} URLs (rule kind url).`,
      );
      return block(`if (!${re}.test(${v})) `, [
        `${lib('url', 'invalidUrl')}(o, p, i, ${quote(site.name)}, ${v}, ${quote(orList(r.schemes))});`,
        stop,
      ]);
    }
    case 'code-list': {
      const list = CODE_LISTS[r.list];
      if (!list) throw new Error(`events-validators: unknown code list ${r.list}`);
      scope.use('@org/events-types', list);
      const set = scope.constant(`CODES_${constName(r.list)}`, `new Set(${list})`, 'ReadonlySet<string>');
      const code = r.severity === 'warning' ? 'invalid_code_dropped' : 'invalid_code';
      return block(`if (!${set}.has(${v})) `, [
        `${lib('code-list', 'checkCode')}(o, '${code}', ${loc}, ${v}, ${set}, ${r.case === 'upper'}, ${quote(site.expected)});`,
        ...(r.severity === 'warning' ? site.drop : [stop]),
      ]);
    }
    case 'ip-address':
      fieldOnly(r, site);
      return block('', [
        `const r = ${lib('ip', 'ipProblem')}(${v});`,
        ...block('if (r !== undefined) ', [
          `${lib('ip', 'ipDropped')}(o, p, i, ${quote(site.name)}, r);`,
          ...site.drop,
        ]),
      ]);
    case 'user-agent':
      fieldOnly(r, site);
      return block('', [
        `const r = ${lib('user-agent', 'userAgentProblem')}(${v}, ${userAgentRule(ir, scope)});`,
        ...block('if (r !== undefined) ', [
          `${lib('user-agent', 'userAgentDropped')}(o, p, i, ${quote(site.name)}, r);`,
          ...site.drop,
        ]),
      ]);
    case 'sha256-hex':
      return block('', [
        `const h = ${lib('sha256-hex', 'digestState')}(${v});`,
        ...block('if (h === 0) ', [`${lib('sha256-hex', 'hashDropped')}(o, ${loc});`, ...site.drop]),
        ...block('if (h === 2) ', site.set(`${v}.toLowerCase()`)),
      ]);
    case 'decimal-string': {
      const args = [r.exclusiveMinimum, r.minimum, r.maximum?.value].map((n) =>
        n === undefined ? 'undefined' : String(n),
      );
      return [
        `if (!${lib('decimal', 'checkDecimal')}(o, ${loc}, ${v}, ${quote(site.expected)}, ${args.join(', ')})) ${stop}`,
      ];
    }
    case 'unknown-keys':
    case 'require-any-of':
    case 'default-from-context':
    case 'ids-in-items':
    case 'agrees-with':
    case 'positive-for-events':
    case 'recommended-fields':
    case 'dedup':
      throw new Error(
        `events-validators: rule kind ${r.kind} belongs to an object, not to field ${site.name}`,
      );
  }
}

/** Whether a rule may drop or replace the value, so the accepted array needs copy-on-write. */
export function mayChange(r: RuleIR): boolean {
  switch (r.kind) {
    case 'sha256-hex':
    case 'ip-address':
    case 'user-agent':
    case 'event-name':
      return true;
    case 'enum':
      return r.caseInsensitive;
    case 'pattern':
    case 'code-list':
      return r.severity === 'warning';
    case 'bounds':
      // C87: a maxLength whose limit drops the value.
      return typeof r.maxLength === 'object' && r.maxLength.overflow === 'drop';
    default:
      return false;
  }
}
