import { PROBLEM_CODES } from '@org/events-types';
import { isIp } from './ip.js';
import {
  addProblem,
  cut,
  type EventProblems,
  formatMessage,
  formatTemplate,
  MessageCache2,
  pathOf,
  RecentProblems,
} from './problems.js';

// The texts of the {reason} parameter are spec data (messages.yaml); this kind only tells the cases apart.
const REASONS = PROBLEM_CODES.invalid_user_agent_dropped.reasons;

/** The user-agent rule of spec/data/normalization.yaml, compiled by the generator. */
export interface UserAgentRule {
  /** Lower-case placeholder values that are not user agents (other, null, ...). */
  reject: ReadonlySet<string>;
  /** Length of the longest of them: longer values skip the lower-casing. */
  rejectMaxLength: number;
  /** One case-insensitive alternation of the bot patterns. */
  bot: RegExp;
  /** A product/version token such as `Mozilla/5.0`: the software category's name and version (C22). */
  productToken: RegExp;
  /** C22: fewest items of the system category, in the first parenthesized comment, split by the separator. */
  systemItemsMin: number;
  systemSeparator: string;
  /** The product token pattern with the global flag, to read every product of the agent. */
  productTokens: RegExp;
  /** C85: lower-case product names that name no browser or app (`mozilla`). */
  compatibilityProducts: ReadonlySet<string>;
}

/**
 * Rule kind `user-agent` (C4, seed 2.4: never Other or null, no bots): why `s` cannot be used as the
 * client user agent, or undefined when it can.
 */
export function userAgentProblem(s: string, rule: UserAgentRule): string | undefined {
  const known = verdicts.get(s);
  if (known !== undefined) return known === '' ? undefined : known;
  const found = diagnose(s, rule);
  if (s.length <= CACHED_MAX_LENGTH) {
    if (verdicts.size >= 4096) verdicts.clear();
    verdicts.set(s, found ?? '');
  }
  return found;
}

/**
 * Verdicts of recent user agents ('' when usable). Traffic repeats a few hundred browser builds, and the
 * bot patterns cost a case-insensitive scan of the whole string; a repeat costs one map read.
 */
const verdicts = new Map<string, string>();
/** Longer values (real user agents stay well under it) are not kept, so the cache stays small. */
const CACHED_MAX_LENGTH = 512;

function diagnose(s: string, rule: UserAgentRule): string | undefined {
  const t = s.trim();
  if (t === '') return REASONS.empty;
  const value = JSON.stringify(cut(t));
  if (t.length <= rule.rejectMaxLength && rule.reject.has(t.toLowerCase()))
    return formatTemplate(REASONS.placeholder, { value });
  const bot = rule.bot.exec(t);
  if (bot !== null) return formatTemplate(REASONS.bot, { match: JSON.stringify(bot[0]) });
  if (!rule.productToken.test(t)) return isIp(t) ? REASONS.ip_address : REASONS.no_product_token;
  const count = systemItems(t, rule.systemSeparator);
  if (count < rule.systemItemsMin)
    return formatTemplate(REASONS.few_system_items, { count, min: rule.systemItemsMin });
  // C85: the software category is the browser or app; a compatibility token alone names neither.
  const products = t.match(rule.productTokens) ?? [];
  if (products.every((p) => rule.compatibilityProducts.has(p.slice(0, p.indexOf('/')).toLowerCase())))
    return formatTemplate(REASONS.no_browser, { products: products.join(', ') });
  return undefined;
}

/** Non-empty items of the first parenthesized comment (the system category of seed 2.4, C22). */
function systemItems(t: string, separator: string): number {
  const open = t.indexOf('(');
  if (open < 0) return 0;
  const close = t.indexOf(')', open + 1);
  const comment = t.slice(open + 1, close < 0 ? t.length : close);
  let n = 0;
  for (const item of comment.split(separator)) if (item.trim() !== '') n++;
  return n;
}

const messages = new MessageCache2();
/** The unusable agents met last: a repeat (same path, same cached reason) builds no path. */
const recent = new RecentProblems();

/**
 * Reports `invalid_user_agent_dropped`. The message depends on the path and the reason alone, and a batch
 * repeats the same unusable agent (an SDK's placeholder, one bot): rendered once per pair.
 */
export function userAgentDropped(o: EventProblems, p: string, i: number, name: string, reason: string): void {
  if (recent.add(o, p, i, name, reason)) return;
  const path = pathOf(p, i, name, -1);
  const message =
    messages.get(path, reason) ??
    messages.set(path, reason, formatMessage('invalid_user_agent_dropped', { path, reason }));
  if (reason.length <= 256)
    recent.remember(o, p, i, name, reason, 'invalid_user_agent_dropped', path, message);
  else addProblem(o, 'invalid_user_agent_dropped', path, message);
}
