import type { IdsInItemsRule } from '../ir/types.js';
import { block, quote } from '../kit/code.js';
import { code } from '../kit/md.js';
import { fieldBit, pickName } from '../kit/names.js';
import { type ObjectKind, stringParams } from './kind.js';

const PARAMS = ['ids', 'items', 'key'] as const;

/** Every entry of the list `ids` should be the `key` of an entry of `items`; others are dropped (content_ids). */
export const idsInItems: ObjectKind<IdsInItemsRule> = {
  place: 'object',
  codes: ['content_id_not_in_contents'],
  parse: {
    params: PARAMS,
    read: (r) => ({ kind: 'ids-in-items', severity: 'warning', ...stringParams(r, PARAMS) }),
  },
  names: (r) => [r.ids, r.items],
  code: (r, schema, { scope }) =>
    block('', [
      `const ids = t[${quote(r.ids)}];`,
      `const items = t[${quote(r.items)}];`,
      ...block('if (Array.isArray(ids) && Array.isArray(items)) ', [
        `const kept = ${scope.lib('ids-in-items', 'idsInItems')}(o, p, i, ${quote(r.ids)}, ${quote(r.items)}, ${quote(r.key)}, ids, items);`,
        ...block('if (kept !== ids) ', [
          `if (kept.length === 0) t = ${pickName(schema.name)}(t, undefined, ~${fieldBit(schema, r.ids)});`,
          ...block('else ', ['if (t === s) t = { ...s };', `t[${quote(r.ids)}] = kept;`]),
        ]),
      ]),
    ]),
  doc: (r) => `every ${code(r.ids)} entry should be the ${code(r.key)} of an entry of ${code(r.items)}`,
  summary: () => undefined,
};
