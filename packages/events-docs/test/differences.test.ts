// The "Differences from Pinterest" page (spec/data/differences.yaml): the rows issue 38 asked for, first name
// (C119) and the four limits of the service's own that Pinterest does not document (item 7), each with the
// service's behaviour and the decisions behind it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { referenceRoot } from '../src/index.js';

const page = readFileSync(join(referenceRoot, 'differences.md'), 'utf8');

/** The cells of the row of the differences table whose first cell is `topic`. */
function row(topic: string): string[] | undefined {
  const line = page.split('\n').find((l) => l.startsWith(`| ${topic} |`));
  return line?.slice(2, -2).split(' | ');
}

describe('Differences from Pinterest', () => {
  it.each([
    ['`user_data.fn` (first name)', /differs from the seed, not from Pinterest/, ['C4', 'C119']],
    [
      'Hashes in one `user_data` field',
      /^At most 100 hashes in one field; more fails the event/,
      ['C4', 'C13'],
    ],
    ['`custom_data.currency` codes', /ISO-4217 list of `spec\/data\/currencies\.yaml`/, ['C4', 'C16']],
    ['`event_source_url` without a scheme', /absolute `http` or `https` URL/, ['C4']],
    ['A field of the wrong JSON type', /^Only that event fails/, ['C3', 'C4']],
    ['`custom_data.value` of zero', /with the warning `zero_value_kept`/, ['C86', 'C120']],
  ])('%s: what the service does, and why', (topic, service, decisions) => {
    const cells = row(topic);
    expect(cells, topic).toBeDefined();
    const [, pinterest, ours, why, cited] = cells!;
    expect(pinterest).toMatch(/<br>Seen in: \S/);
    expect(ours).toMatch(service);
    expect(why!.length).toBeGreaterThan(40);
    expect([...new Set(cited!.match(/C\d+/g))]).toEqual(decisions);
  });

  it("lists fn among the fields taken from Pinterest's API, not from the seed (C17, C119)", () => {
    const fields = page.slice(page.indexOf('## Fields not in the seed'));
    expect(fields).toMatch(
      /^\| `user_data\.fn` \| array of string \| SHA-256 hashes of lower-case first names/m,
    );
  });
});
