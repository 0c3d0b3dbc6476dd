import {
  IndentationText,
  NewLineKind,
  Project,
  QuoteKind,
  type StatementStructures,
  StructureKind,
  VariableDeclarationKind,
} from 'ts-morph';
import { doc, literal } from '../kit/literal.js';
import { GENERATED_HEADER } from './emitter.js';

let project: Project | undefined;

function getProject(): Project {
  project ??= new Project({
    useInMemoryFileSystem: true,
    manipulationSettings: {
      indentationText: IndentationText.TwoSpaces,
      newLineKind: NewLineKind.LineFeed,
      quoteKind: QuoteKind.Single,
      useTrailingCommas: true,
    },
  });
  return project;
}

/**
 * Builds one TypeScript file from structures in a single bulk call (ts-morph re-parses after every
 * manipulation, so adding statements one by one would be quadratic).
 */
export function tsFile(path: string, statements: (string | StatementStructures)[]): string {
  const p = getProject();
  const sf = p.createSourceFile(`/${path}`, { statements }, { overwrite: true });
  const text =
    GENERATED_HEADER +
    sf
      .getFullText()
      .replace(/\n{3,}/g, '\n\n')
      .trimEnd() +
    '\n';
  p.removeSourceFile(sf);
  return text;
}

/** `export const NAME = <literal> as const;` with a JSDoc line: how emitters publish spec data. */
export function constStatement(
  name: string,
  value: unknown,
  description: string,
  asConst = true,
): StatementStructures {
  return {
    kind: StructureKind.VariableStatement,
    isExported: true,
    declarationKind: VariableDeclarationKind.Const,
    docs: [doc(description)],
    declarations: [{ name, initializer: `${literal(value)}${asConst ? ' as const' : ''}` }],
  };
}
