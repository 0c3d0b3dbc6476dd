import type { RuleIR, RuleKind } from '../ir/types.js';
import { agreesWith } from './agrees-with.js';
import { bounds } from './bounds.js';
import { codeList } from './code-list.js';
import { decimalString } from './decimal-string.js';
import { dedup } from './dedup.js';
import { defaultFromContext } from './default-from-context.js';
import { enumRule } from './enum.js';
import { eventName } from './event-name.js';
import { idsInItems } from './ids-in-items.js';
import { ipAddress } from './ip-address.js';
import type { RuleKindModule } from './kind.js';
import { pattern } from './pattern.js';
import { positiveForEvents } from './positive-for-events.js';
import { recommendedFieldsRule } from './recommended-fields.js';
import { requireAnyOf } from './require-any-of.js';
import { required } from './required.js';
import { sha256Hex } from './sha256-hex.js';
import { type } from './type.js';
import { unixSeconds } from './unix-seconds.js';
import { unknownKeys } from './unknown-keys.js';
import { url } from './url.js';
import { userAgent } from './user-agent.js';

/** The module of each kind of the IR's `RuleIR`, for that kind's rule. */
type Modules = { [K in RuleKind]: RuleKindModule<Extract<RuleIR, { kind: K }>> };

/**
 * Every rule kind, by the name the spec and messages.yaml give it. A new kind is its rule type in the IR
 * (src/ir/types.ts), a module of this folder, a line here, and its runtime in
 * packages/events-validators/src/lib (C104). The table must hold a module for every rule type of the IR and
 * no other (a missing, extra or mismatched kind is a type error).
 */
export const RULE_KINDS = {
  required,
  type,
  enum: enumRule,
  bounds,
  pattern,
  'event-name': eventName,
  'unix-seconds': unixSeconds,
  url,
  'code-list': codeList,
  'ip-address': ipAddress,
  'user-agent': userAgent,
  'sha256-hex': sha256Hex,
  'decimal-string': decimalString,
  'unknown-keys': unknownKeys,
  'require-any-of': requireAnyOf,
  'default-from-context': defaultFromContext,
  'ids-in-items': idsInItems,
  'agrees-with': agreesWith,
  'positive-for-events': positiveForEvents,
  'recommended-fields': recommendedFieldsRule,
  dedup,
} satisfies Modules;

/**
 * Message kinds no rule names: `integer-exact` is part of the JSON type check of integer fields (C38);
 * `json-text` is found by the server in the request bytes (C35). Their codes are documented with every
 * message, not listed per field.
 */
const TEXT_KINDS: Record<string, readonly string[]> = {
  'integer-exact': ['integer_not_exact'],
  'json-text': ['member_repeated'],
};

/** The module of a rule's kind. */
export function kindOf(r: RuleIR): RuleKindModule<RuleIR> {
  return RULE_KINDS[r.kind] as RuleKindModule<RuleIR>;
}

/** The module of a kind named in the spec, if there is one. */
export function kindNamed(name: string): RuleKindModule<RuleIR> | undefined {
  return Object.hasOwn(RULE_KINDS, name)
    ? (RULE_KINDS[name as RuleKind] as RuleKindModule<RuleIR>)
    : undefined;
}

/** The message codes each kind may emit; gen fails when one lacks a template in messages.yaml. */
export const KIND_CODES: Readonly<Record<string, readonly string[]>> = {
  ...Object.fromEntries(Object.entries(RULE_KINDS).map(([k, m]) => [k, m.codes])),
  ...TEXT_KINDS,
};

/** The `{reason}` cases each code's kind tells apart; gen fails when messages.yaml lacks a text for one. */
export const CODE_REASONS: Readonly<Record<string, readonly string[]>> = Object.assign(
  {},
  ...Object.values(RULE_KINDS).map((m) => m.reasons ?? {}),
);
