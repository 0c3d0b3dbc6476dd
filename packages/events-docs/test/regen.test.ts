// The docs follow the spec: change a limit and add an event name in a copy of spec/, regenerate there with
// the docs emitter only, and find both in the Markdown and the HTML. Also: `pnpm gen --check` is clean for
// the docs of this checkout (output is deterministic and committed).
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { emitters, runGen } from '@org/codegen';
import { afterAll, describe, expect, it } from 'vitest';

const repo = fileURLToPath(new URL('../../..', import.meta.url));
const docs = emitters.find((e) => e.name === 'events-docs');
if (!docs)
  throw new Error('the events-docs emitter is not registered in tools/codegen/src/emitters/index.ts');

const tmp = mkdtempSync(join(tmpdir(), 'events-docs-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('docs regenerate from the spec', () => {
  it('a changed limit and a new event name reach the Markdown and the HTML', async () => {
    cpSync(join(repo, 'spec'), join(tmp, 'spec'), { recursive: true });
    const limits = join(tmp, 'spec/data/limits.yaml');
    const before = readFileSync(limits, 'utf8');
    const after = before.replace(/batch_max_events: \{ value: 1000,/, 'batch_max_events: { value: 777,');
    expect(after).not.toBe(before);
    writeFileSync(limits, after);
    const names = join(tmp, 'spec/data/event-names.yaml');
    const nameFile = readFileSync(names, 'utf8');
    const added = nameFile.replace(
      /^standard:\n/m,
      'standard:\n  - { name: book_demo, tagName: BookDemo, purpose: People who book a product demo, usableFor: [audience_creation] }\n',
    );
    expect(added).not.toBe(nameFile);
    writeFileSync(names, added);

    const result = await runGen({ root: tmp, specDir: join(tmp, 'spec'), emitters: [docs] });
    expect(result.stale).toEqual([]);
    const out = (p: string) => readFileSync(join(tmp, 'packages/events-docs', p), 'utf8');

    expect(out('reference/limits.md')).toMatch(/`batch_max_events`.*\| 777 \|/);
    expect(out('reference/endpoint.md')).toContain('At most 777 ([`batch_max_events`]');
    expect(out('public/limits.html')).toMatch(/<code>batch_max_events<\/code>.*<td>777<\/td>/);
    expect(out('public/endpoint.html')).toContain('At most 777 (');
    expect(out('public/openapi.json')).toContain('"maxItems": 777');

    expect(out('reference/event-names.md')).toContain(
      '| `book_demo` | BookDemo | People who book a product demo |',
    );
    expect(out('public/event-names.html')).toContain('<td><code>book_demo</code></td><td>BookDemo</td>');
    expect(out('public/openapi.yaml')).toContain('- book_demo');
  }, 90_000); // the whole generator runs twice; slow on a loaded 2-core machine

  it('the committed docs are what the spec gives (gen --check), byte for byte', async () => {
    const result = await runGen({ root: repo, check: true, emitters: [docs] });
    expect(result.changed).toEqual([]);
    expect(result.stale).toEqual([]);
    // Two emits of one IR are identical.
    const again = docs.emit(result.ir).sort((a, b) => (a.path < b.path ? -1 : 1));
    expect(again.length).toBe(result.files.length);
    again.forEach((f, i) => {
      expect(f.path).toBe(result.files[i]!.path);
      expect(f.content === result.files[i]!.content, f.path).toBe(true);
    });
  }, 90_000);
});
