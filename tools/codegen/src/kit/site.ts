import type { TypeIR } from '../ir/types.js';
import { quote } from './code.js';

/**
 * Where a value is checked: a field of an object (`x`, ends with `break`) or an item of an array field
 * (`y`, ends with `continue`). Rules emit code through it, so one rule kind has one emitter for both places.
 */
export interface Site {
  /** Variable holding the value. */
  v: 'x' | 'y';
  /** Schema holding the field (names hoisted constants). */
  owner: string;
  /** Field name (the array's name for items). */
  name: string;
  /** Runtime path arguments: object path, object index, field, item index. */
  loc: string;
  /** The field's x-expected text (or the item type in words). */
  expected: string;
  type: TypeIR;
  /** Hashed user_data values: never echoed in messages (C4). */
  sensitive: boolean;
  item: boolean;
  /** Ends the checks of this value (it failed; the event fails). */
  stop: string;
  /**
   * Drops the value from the accepted event (a warning, C4) and ends its checks. A field sets its bit in
   * `dm`, the drop mask of its object; an item is left out of the copy `d` of its array.
   */
  drop: string[];
  /**
   * Replaces the value in the accepted event (case-normalized enum, lower-cased digest, registered name):
   * a field in `a`, the replaced values of its object; an item in `y`.
   */
  set(expr: string): string[];
}

export function fieldSite(
  owner: string,
  name: string,
  bit: number,
  type: TypeIR,
  expected: string,
  sensitive: boolean,
): Site {
  const key = quote(name);
  return {
    v: 'x',
    owner,
    name,
    loc: `p, i, ${key}, -1`,
    expected,
    type,
    sensitive,
    item: false,
    stop: 'break;',
    drop: [`dm |= ${bit};`, 'break;'],
    set: (e) => [`(a ??= {})[${key}] = ${e};`],
  };
}

export function itemSite(
  owner: string,
  name: string,
  type: TypeIR,
  expected: string,
  sensitive: boolean,
): Site {
  return {
    v: 'y',
    owner,
    name,
    loc: `p, i, ${quote(name)}, j`,
    expected,
    type,
    sensitive,
    item: true,
    stop: 'continue;',
    drop: ['d ??= x.slice(0, j);', 'continue;'],
    set: (e) => [`y = ${e};`],
  };
}
