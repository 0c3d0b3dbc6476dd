import type { LimitRef } from '../ir/types.js';
import { num } from './units.js';

/** Small Markdown builders. Every table cell goes through `cell`, so spec text cannot break a table. */

/** Escapes a value for a table cell: pipes and line breaks would end the cell or the row. */
export function cell(text: string): string {
  return esc(text).replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

/**
 * Escapes `<` outside code spans (spec prose says `Bearer <token>`), keeping the two tags the pages write
 * themselves: anchors (`<a id="...">`) and line breaks in table cells (`<br>`).
 */
export function esc(text: string): string {
  return text
    .split(/(`+[^`]*`+)/g)
    .map((part, i) => (i % 2 ? part : part.replace(/<(?!\/?a[\s>]|br>)/g, '&lt;')))
    .join('');
}

/** Inline code that survives backticks inside the value. */
export function code(text: string): string {
  const ticks = text.includes('`') ? '``' : '`';
  const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
  return `${ticks}${pad}${text}${pad}${ticks}`;
}

/** A GitHub-flavoured Markdown table; cells are given as Markdown and escaped for the table. */
export function table(head: string[], rows: string[][]): string {
  const line = (r: string[]) => `| ${r.map(cell).join(' | ')} |`;
  return [line(head), `|${head.map(() => '---').join('|')}|`, ...rows.map(line)].join('\n');
}

/** A fenced code block. */
export function fence(lang: string, body: string): string {
  const ticks = body.includes('```') ? '````' : '```';
  return `${ticks}${lang}\n${body.replace(/\n$/, '')}\n${ticks}`;
}

export function json(value: unknown): string {
  return fence('json', JSON.stringify(value, null, 2));
}

/** A bulleted list. */
export function list(items: string[]): string {
  return items.map((i) => `- ${i}`).join('\n');
}

/** Joins blocks with one blank line; empty blocks are left out. */
export function blocks(...parts: (string | false | undefined)[]): string {
  const kept = parts.filter((p): p is string => typeof p === 'string' && p.length > 0);
  // Prose is escaped here; a part holding a fence was built by blocks() already, or is a fence.
  return `${kept.map((p) => (p.includes('```') ? p.replace(/\n$/, '') : esc(p))).join('\n\n')}\n`;
}

/** `a, b and c`. */
export function words(items: string[], last = 'and'): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} ${last} ${items[items.length - 1]}`;
}

// Shared with the prose templates of the spec (C108), so a limit reads the same in tables and in text.
export { duration, num } from './units.js';

/** A link to another reference page (Markdown links; the HTML renderer turns `.md` into `.html`). */
export function link(text: string, page: string, anchor?: string): string {
  return `[${text}](${page}.md${anchor ? `#${anchor}` : ''})`;
}

/** Heading anchors, the same for the Markdown (GitHub) and the HTML renderer. */
export function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/<[^>]*>/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .trim()
    .replace(/\s/g, '-');
}

/** A limit with its key, linked to the limits page, so a reader can find where it is set. */
export function limitText(v: LimitRef | number): string {
  if (typeof v === 'number') return num(v);
  return `${num(v.value)} (${link(code(v.key), 'limits', v.key)})`;
}

/** A limit with its key in plain text, where nothing links (the JSDoc of the generated types). */
export function limitPlain(v: LimitRef | number): string {
  return typeof v === 'number' ? String(v) : `${v.value} (limit \`${v.key}\`)`;
}
