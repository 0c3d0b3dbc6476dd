import type { IR } from '../ir/types.js';
import { Reader } from '../load/reader.js';

/**
 * Where in the spec an emitter's problem with the IR comes from, to report it as a coded diagnostic with its
 * file and path (`specAt(...).fail(code, params)`): a schema, one of its properties, or a node below them.
 */
export function schemaAt(ir: IR, schema: string, field?: string, ...below: string[]): Reader {
  const path = ['components', 'schemas', schema, ...(field ? ['properties', field] : []), ...below];
  return new Reader(ir.files.openapi, undefined, path.join('.'));
}

/** A node of a data file, by its x-data key (`requestErrors`, `normalization`). */
export function dataAt(ir: IR, key: string, path: string): Reader {
  return new Reader(ir.files.data[key] ?? ir.files.openapi, undefined, path);
}

/** A node of openapi.yaml by its path segments (`'paths', op.path, op.method`). */
export function specAt(ir: IR, ...path: string[]): Reader {
  return new Reader(ir.files.openapi, undefined, path.join('.'));
}
