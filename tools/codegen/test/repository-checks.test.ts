// The checks `pnpm gen` runs over the repository: every cited decision id has a record, and every path the
// traceability table of spec/README.md names exists.
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkCitations, findCitations } from '../src/check/citations.js';
import { checkTraceability, namedPaths } from '../src/check/traceability.js';
import { emitters } from '../src/emitters/index.js';
import type { IR } from '../src/ir/types.js';
import { loadSpec } from '../src/load/load-spec.js';
import { buildIR } from '../src/model/build-ir.js';
import { realSpecDir, repoRoot, tempTree } from './helpers.js';

const temps: string[] = [];
afterEach(async () => {
  await Promise.all(temps.splice(0).map((t) => rm(t, { recursive: true, force: true })));
});

const tree = (files: Record<string, string>) => tempTree(files, temps);

// Ids with no record are built, not written, so this file does not itself cite an unknown id (gen checks that).
const [X, Y, Z, W] = [99, 41, 42, 43].map((n) => `C${n}`) as [string, string, string, string];
const irWith = (...ids: string[]) => ({ decisions: ids.map((id) => ({ id })) }) as unknown as IR;

describe('citations of decision ids', () => {
  it('are found in sources, tests, docs and spec, not in installed or generated output', async () => {
    const root = await tree({
      'packages/a/src/x.ts': '// C4 and C10\nconst y = 1; // see C6.\n',
      'packages/a/README.md': 'Rules (C4).\n',
      'spec/data/limits.yaml': 'source: C2\n',
      'tools/t/test/y.test.ts': '// C3\n',
      'packages/a/node_modules/dep/index.js': `// ${X}\n`,
      'packages/a/dist/x.js': `// ${X}\n`,
      'packages/a/src/generated/x.gen.ts': `// ${X}\n`,
      'packages/docs/public/page.html': `<p>${X}</p>\n`,
      'packages/a/src/image.png': X,
      'other/z.ts': `// ${X}\n`,
      'packages/a/src/word.ts': '// ABC12, C1234 and C12x are not citations\n',
    });
    expect(await findCitations(root, ['packages/docs/public'])).toEqual([
      { file: 'packages/a/README.md', line: 1, id: 'C4' },
      { file: 'packages/a/src/x.ts', line: 1, id: 'C4' },
      { file: 'packages/a/src/x.ts', line: 1, id: 'C10' },
      { file: 'packages/a/src/x.ts', line: 2, id: 'C6' },
      { file: 'spec/data/limits.yaml', line: 1, id: 'C2' },
      { file: 'tools/t/test/y.test.ts', line: 1, id: 'C3' },
    ]);
  });

  it('an id without a record fails, naming the file and line of each', async () => {
    const root = await tree({
      'packages/a/src/x.ts': `// C4\n// ${Y} and ${Z}\n`,
      'spec/README.md': `| ${W} |\n`,
    });
    await expect(checkCitations(root, irWith('C4'))).rejects.toThrow(
      `packages/a/src/x.ts: line 2: cites ${Y}, which has no record in spec/decisions; also packages/a/src/x.ts:2 ${Z}, spec/README.md:1 ${W}`,
    );
    await expect(checkCitations(root, irWith('C4', Y, Z, W))).resolves.toBeUndefined();
  });

  it('every id cited in this repository has a record', async () => {
    const ir = await buildIR(await loadSpec(realSpecDir));
    const generated = emitters.flatMap((e) => e.owns);
    const cited = await findCitations(repoRoot, generated);
    expect(cited.length).toBeGreaterThan(100);
    await expect(checkCitations(repoRoot, ir, generated)).resolves.toBeUndefined();
  });
});

describe('paths of the traceability table', () => {
  it('are the code spans and relative links that name a file or a folder', () => {
    expect(
      namedPaths(
        '| 1 | `packages/a/src/x.ts`, `data/limits.yaml` | `x-rules: url` | `/v5/ad_accounts/{id}` | `application/json` | [guide](../tools/README.md#top) [web](https://example.com/a.md) `spec/decisions/*.md` `fixtures/`',
      ),
    ).toEqual([
      '../tools/README.md',
      'data/limits.yaml',
      'fixtures/',
      'packages/a/src/x.ts',
      'spec/decisions/*.md',
    ]);
  });

  const TABLE = (rows: string[]) =>
    ['## Traceability', '', '| Seed | Statement | Code | Test |', '|---|---|---|---|', ...rows, ''].join(
      '\n',
    );

  it('a path that exists neither from the root nor from the README fails, naming each', async () => {
    const root = await tree({
      'packages/a/src/x.ts': '',
      'packages/a/test/x.test.ts': '',
      'spec/data/limits.yaml': '',
      'spec/decisions/C1-a.md': '',
      'spec/README.md': TABLE([
        '| 1 | a | `packages/a/src/x.ts` | `packages/a/test/gone.test.ts` |',
        '| 2 | b | `data/limits.yaml` | `spec/decisions/*.md` [x](../nowhere/README.md) |',
      ]),
    });
    await expect(checkTraceability(root)).rejects.toThrow(
      'spec/README.md: Traceability: names paths that do not exist: ../nowhere/README.md, packages/a/test/gone.test.ts',
    );
    await writeFile(
      join(root, 'spec/README.md'),
      TABLE(['| 1 | a | `packages/a/src/x.ts` | `packages/a/test/x.test.ts`, `data/limits.yaml` |']),
    );
    await expect(checkTraceability(root)).resolves.toBeUndefined();
  });

  it('each row names a code file and a test file', async () => {
    const root = await tree({ 'packages/a/src/x.ts': '' });
    const readme = join(root, 'spec/README.md');
    await mkdir(dirname(readme), { recursive: true });
    await writeFile(
      readme,
      TABLE(['| 1 | a | `packages/a/src/x.ts` | the tests |', '| 2.1 | b | code | - |']),
    );
    await expect(checkTraceability(root)).rejects.toThrow(
      'spec/README.md: Traceability: row 1 (1: a) names no file in "Test"; row 2 (2.1: b) names no file in "Code"; row 2 (2.1: b) names no file in "Test"',
    );
    await writeFile(readme, '# No table\n');
    await expect(checkTraceability(root)).rejects.toThrow(
      'spec/README.md: Traceability: has no "## Traceability" section with a table',
    );
  });

  it("this repository's table names only paths that exist", async () => {
    const paths = namedPaths(
      await import('node:fs/promises').then((fs) => fs.readFile(join(realSpecDir, 'README.md'), 'utf8')),
    );
    expect(paths.filter((p) => p.endsWith('.test.ts')).length).toBeGreaterThan(15);
    await expect(checkTraceability(repoRoot)).resolves.toBeUndefined();
  });
});
