import type { IR, RuleIR, SchemaIR } from '../../ir/types.js';
import type { FileScope } from '../../kit/scope.js';
import type { Site } from '../../kit/site.js';
import { kindOf } from '../../rules/index.js';

/** Code checking one rule on a value whose JSON type is already right (src/rules/<kind>.ts emits it). */
export function ruleCode(ir: IR, r: RuleIR, site: Site, scope: FileScope): string[] {
  const k = kindOf(r);
  // The model placed every rule where its kind may stand (diagnostic rule-kind-misplaced).
  if (k.place === 'object' || (k.place === 'field' && site.item))
    throw new Error(`events-validators: rule kind ${r.kind} misplaced on ${site.owner}.${site.name}`);
  return k.code(r, site, { ir, scope });
}

/** Code checking one rule on the accepted object `t` of `schema`, after its fields. */
export function objectRuleCode(ir: IR, schema: SchemaIR, r: RuleIR, scope: FileScope): string[] {
  const k = kindOf(r);
  if (k.place !== 'object')
    throw new Error(`events-validators: rule kind ${r.kind} misplaced on ${schema.name}`);
  return k.code(r, schema, { ir, scope });
}

/** Whether a rule may drop or replace the value, so the accepted array needs copy-on-write. */
export function mayChange(r: RuleIR): boolean {
  const k = kindOf(r);
  return k.place !== 'object' && (k.mayChange?.(r) ?? false);
}
