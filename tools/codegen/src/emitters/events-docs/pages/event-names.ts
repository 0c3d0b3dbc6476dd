import { blocks, code, limitText, link, list, table, words } from '../../../kit/md.js';
import type { DocsContext } from '../context.js';
import type { Page } from './page.js';

/** `conversion_reporting` -> `Conversion reporting`. */
export function usageText(u: string): string {
  const s = u.replace(/_/g, ' ');
  return s.charAt(0).toUpperCase() + s.slice(1);
}

export const eventNamesPage: Page = {
  slug: 'event-names',
  title: 'Event names',
  summary: 'The standard event names, their tag names, purpose and what each is usable for (seed 2.2).',
  body(ctx: DocsContext) {
    const en = ctx.ir.eventNames;
    const usages = ctx.enumValues('EventUsage');
    const m = ctx.message('invalid_event_name');
    const borrowed = en.standard.filter((e) => e.source);
    const origin = borrowed.length
      ? ` (${words(borrowed.map((e) => `${code(e.name)} comes from ${e.source}`))}; every other row is the seed's table)`
      : '';
    return blocks(
      `${code('event_name')} is one of the ${en.standard.length} standard names below${origin}, or a ${link('custom event name', 'custom-events')} registered for the ad account (C10). Anything else fails that event (C4). Names are matched exactly: ${code(en.standard[0]!.name.toUpperCase())} is not ${code(en.standard[0]!.name)}.`,
      '## Standard event names',
      table(
        ['Name in the API', 'Name in the tag', 'Purpose', ...usages.map(usageText)],
        en.standard.map((e) => [
          code(e.name),
          e.tagName ?? 'N/A',
          e.source ? `${e.purpose} (${e.source})` : e.purpose,
          ...usages.map((u) => (e.usableFor.includes(u) ? 'yes' : '')),
        ]),
      ),
      '## What the usage means',
      list(
        usages.map(
          (u) =>
            `**${usageText(u)}** (${code(u)}): ${en.standard.filter((e) => e.usableFor.includes(u)).length} standard names${en.custom.usableFor.includes(u) ? ' and every custom name' : ''}. Stored events record it (C11).`,
        ),
      ),
      '## Groups',
      'Named groups of standard names, used by the recommended-field rules (see the Required column on '.concat(
        link('Fields', 'fields'),
        ').',
      ),
      table(
        ['Group', 'Names'],
        Object.entries(en.groups).map(([g, names]) => [code(g), names.map(code).join(', ')]),
      ),
      '## A name that is not accepted',
      `The event fails with ${link(code(m.code), 'event-errors', m.code)}: ${code(m.template)}`,
      `${code('{examples}')} is ${words(en.suggestedExamples.map(code))}. ${code('{suggestion}')} is the closest standard name when one is at most ${en.suggestionMaxDistance} edits away (Damerau-Levenshtein, after lower-casing and turning spaces and dashes into underscores).`,
      `Custom names: letters, digits and underscore, at most ${limitText(en.custom.maxLength)} characters, at most ${limitText(en.custom.maxPerAccount)} per ad account; see ${link('Custom event types', 'custom-events')}.`,
    );
  },
};
