import { blocks, code, limitText, link, list, table } from '../../../kit/md.js';
import type { DocsContext } from '../context.js';
import { authText, paramRows, schemaTable } from './endpoint.js';
import { usageText } from './event-names.js';
import type { Page } from './page.js';

export const customEventsPage: Page = {
  slug: 'custom-events',
  title: 'Custom event types',
  summary: 'Registering custom event names per ad account, their rule and their cap (seed 2.3, C10).',
  body(ctx: DocsContext) {
    const c = ctx.ir.eventNames.custom;
    const ops = ctx.ir.operations.filter((o) => o.tag === 'custom_event_types');
    const conflict = ctx.ir.requestErrors.filter((e) => e.status === 409);
    const problems = ctx.ir.requestProblems.filter((p) => p.key.startsWith('custom_event_type'));
    const create = ops.find((o) => o.method === 'post' && o.requestBody);
    return blocks(
      'A custom event covers an action no standard name fits (seed 2.3). It must be registered for the ad account before events use it; an unregistered name fails the event like any unknown name (C4, C10).',
      '## The rule',
      list([
        `Name matches ${code(c.pattern)}: letters, digits 0-9 and underscore.`,
        `At most ${limitText(c.maxLength)} characters.`,
        `${c.caseInsensitive ? 'Case-insensitive: registering `Lead_Form` makes `lead_form` and `LEAD_FORM` the same name, and a second registration of it is refused.' : 'Case-sensitive.'}`,
        `At most ${limitText(c.maxPerAccount)} per ad account; the next one is refused with 409.`,
        'Each custom event is mapped to a standard event name.',
        `Usable for: ${c.usableFor.map(usageText).join(', ')} only.`,
      ]),
      '## Endpoints',
      table(
        ['Method', 'Path', 'What it does', 'Tokens', 'Rate-limit category'],
        ops.map((o) => [
          code(o.method.toUpperCase()),
          code(o.path),
          o.description,
          authText(o),
          o.rateLimitCategory ? code(o.rateLimitCategory) : 'none',
        ]),
      ),
      ops[0]
        ? table(
            ['Name', 'In', 'Required', 'Type', 'Description'],
            paramRows(
              ops
                .flatMap((o) => o.parameters)
                .filter((p, i, a) => a.findIndex((q) => q.name === p.name) === i),
            ),
          )
        : '',
      create?.requestBody ? `### Body of ${code(`POST ${create.path}`)}` : '',
      create?.requestBody
        ? table(['Field', 'Type', 'Required', 'Meaning'], schemaTable(ctx, create.requestBody))
        : '',
      '## When a registration is refused',
      table(
        ['Status', 'Code', 'Message', 'When', 'Fix'],
        conflict.map((e) => [code(String(e.status)), code(String(e.code)), e.message, e.when, e.fix]),
      ),
      table(
        ['Problem', 'Detail template'],
        problems.map((p) => [code(p.key), code(p.template)]),
      ),
      `A conversion token cannot register custom event types: it reaches the events endpoint only (${link('Authentication', 'authentication')}).`,
    );
  },
};
