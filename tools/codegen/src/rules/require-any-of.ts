import type { RequireAnyOfRule } from '../ir/types.js';
import { quote } from '../kit/code.js';
import { literal } from '../kit/literal.js';
import { code, words } from '../kit/md.js';
import { constName } from '../kit/names.js';
import type { ObjectKind } from './kind.js';

/** The object needs every field of at least one of the alternatives (user_data identifiers). */
export const requireAnyOf: ObjectKind<RequireAnyOfRule> = {
  place: 'object',
  codes: ['missing_identifier'],
  parse: {
    params: ['alternatives'],
    read: (r) => ({
      kind: 'require-any-of',
      severity: 'failed',
      alternatives: r
        .at('alternatives')
        .array()
        .map((a) => a.strings()),
    }),
  },
  names: (r) => r.alternatives.flat(),
  code(r, schema, { scope }) {
    const alts = scope.constant(
      `ANY_OF_${constName(schema.name)}`,
      literal(r.alternatives),
      'readonly (readonly string[])[]',
    );
    // The test inline (named loads, no loop over the lists); the runtime only builds the message.
    const present = scope.lib('present', 'present');
    const test = r.alternatives
      .map((alt) => {
        const all = alt.map((f) => `${present}(t[${quote(f)}])`).join(' && ');
        return alt.length > 1 && r.alternatives.length > 1 ? `(${all})` : all;
      })
      .join(' || ');
    return [`if (!(${test})) ${scope.lib('require-any-of', 'requireAnyOf')}(o, p, i, t, ${alts});`];
  },
  doc: (r) =>
    `needs ${words(
      r.alternatives.map((alt) => words(alt.map(code))),
      'or',
    )}`,
  summary: () => undefined,
};
