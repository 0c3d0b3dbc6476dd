import { LineCounter, parseDocument } from 'yaml';
import { SpecError } from './spec-error.js';

/** Parses YAML text; errors name the file and the line, counted from `firstLine` (front matter starts at 2). */
export function parseYaml(text: string, shownAs: string, firstLine = 1): unknown {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const first = doc.errors[0];
  if (first) {
    const pos = lineCounter.linePos(first.pos[0]);
    throw new SpecError(shownAs, `line ${pos.line + firstLine - 1}, column ${pos.col}`, 'yaml-syntax', {
      detail: first.message.split('\n')[0] ?? 'invalid YAML',
    });
  }
  return doc.toJS({ maxAliasCount: 100 });
}
