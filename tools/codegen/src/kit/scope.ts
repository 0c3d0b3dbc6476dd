import {
  type ImportDeclarationStructure,
  type StatementStructures,
  StructureKind,
  VariableDeclarationKind,
} from 'ts-morph';
import { doc } from './literal.js';

/** Where generated validators find the hand-written runtime (packages/events-validators/src/lib). */
export const LIB = '../lib';

interface Constant {
  name: string;
  type: string | undefined;
  init: string;
  docs: string[];
}

/**
 * Module-level constants and imports of one generated file. Constants are hoisted so a regular expression,
 * a Set or an array is built once at load, never per event. Names are given by the caller; order of first
 * use is deterministic, and both lists are sorted on output.
 */
export class FileScope {
  private readonly constants = new Map<string, Constant>();
  private readonly imports = new Map<string, Map<string, boolean>>();

  /** Imports `name` from `module` (a runtime file of src/lib, or a package) and returns it. */
  use(module: string, name: string, typeOnly = false): string {
    const names = this.imports.get(module) ?? new Map<string, boolean>();
    this.imports.set(module, names);
    names.set(name, (names.get(name) ?? true) && typeOnly);
    return name;
  }

  /** Runtime function `name` of src/lib/<file>.ts. */
  lib(file: string, name: string, typeOnly = false): string {
    return this.use(`${LIB}/${file}.js`, name, typeOnly);
  }

  /** Declares a module constant once; the same name must always get the same initializer. */
  constant(name: string, init: string, type?: string, description?: string): string {
    const existing = this.constants.get(name);
    if (existing && existing.init !== init)
      throw new Error(`constant ${name} declared twice with different values`);
    if (!existing)
      this.constants.set(name, { name, type, init, docs: description ? [doc(description)] : [] });
    return name;
  }

  importStatements(): ImportDeclarationStructure[] {
    return [...this.imports.entries()]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([moduleSpecifier, names]) => {
        const all = [...names.entries()].sort(([a], [b]) => (a < b ? -1 : 1));
        const typeOnly = all.every(([, t]) => t);
        return {
          kind: StructureKind.ImportDeclaration,
          moduleSpecifier,
          isTypeOnly: typeOnly,
          namedImports: all.map(([name, t]) => (t && !typeOnly ? `type ${name}` : name)),
        };
      });
  }

  constantStatements(): StatementStructures[] {
    return [...this.constants.values()]
      .sort((a, b) => (a.name < b.name ? -1 : 1))
      .map((c) => ({
        kind: StructureKind.VariableStatement,
        declarationKind: VariableDeclarationKind.Const,
        docs: c.docs,
        declarations: [{ name: c.name, type: c.type, initializer: c.init }],
      }));
  }
}
