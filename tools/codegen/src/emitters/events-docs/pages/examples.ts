import { blocks, code, fence, json, link, list } from '../../../kit/md.js';
import type { DocsContext } from '../context.js';
import type { ExamplesFile } from '../examples.js';
import type { Page } from './page.js';

export function curl(ctx: DocsContext, ex: ExamplesFile, test: boolean): string {
  const op = ctx.eventsOp;
  const pathParam = op.parameters.find((p) => p.in === 'path');
  const path = pathParam ? op.path.replace(`{${pathParam.name}}`, ex.adAccountId) : op.path;
  const query = test ? `?${op.parameters.find((p) => p.in === 'query')?.name ?? 'test'}=true` : '';
  return fence(
    'sh',
    [
      `curl -sS -X ${op.method.toUpperCase()} '${ex.serverUrl}${path}${query}' \\`,
      "  -H 'Authorization: Bearer $EVENTS_TOKEN' \\",
      "  -H 'Content-Type: application/json' \\",
      '  --data @events.json',
    ].join('\n'),
  ).replace("'Authorization: Bearer $EVENTS_TOKEN'", '"Authorization: Bearer $EVENTS_TOKEN"');
}

export const examplesPage: Page = {
  slug: 'examples',
  title: 'Examples',
  summary:
    'A full request and a partial failure, each with the exact response; checked against the validators by a test.',
  body(ctx: DocsContext, ex: ExamplesFile) {
    return blocks(
      `These examples are assembled from the ${code('example')} values of the spec, and the responses shown are checked by ${code('packages/events-docs/test/examples.test.ts')}, which runs each request through the validators the server uses. They assume the ad account's currency is ${code(ex.context.currency)}, no custom event types, and a server clock of ${code(String(ex.context.now))} (Unix seconds), ${ex.context.now - Number(ex.examples[0]?.request.data[0]?.event_time ?? ex.context.now)} s after ${code('event_time')}: send the current time in ${code('event_time')} when you try them.`,
      `Send a batch in ${link('test mode', 'test-mode')} first: every rule runs and nothing is stored. ${code('EVENTS_TOKEN')} holds a conversion token (the variable the ${code('events')} CLI reads too).`,
      curl(ctx, ex, true),
      ...ex.examples.flatMap((e) => [
        `## ${e.title}`,
        e.description,
        `${code('events.json')}:`,
        json(e.request),
        'Response `200`:',
        json(e.response),
      ]),
      '## Reading the results',
      list([
        '`events[i]` answers `data[i]` (seed 4.1 rule 2).',
        '`num_events_processed` counts `processed` events, warnings included.',
        `A warning listing recommended fields means the event was stored, but matching and reporting improve when those fields are sent (${link('Fields', 'fields')}).`,
        `Every code is explained on ${link('Per-event errors', 'event-errors')}.`,
      ]),
    );
  },
};
