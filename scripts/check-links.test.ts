import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { anchors, checkLinks, slug } from './check-links.ts';

describe('the Markdown link check', () => {
  const root = mkdtempSync(join(tmpdir(), 'links-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  mkdirSync(join(root, 'docs', 'images'), { recursive: true });
  writeFileSync(join(root, 'docs', 'images', 'shot.png'), '');
  writeFileSync(
    join(root, 'docs', 'api.md'),
    '# API reference\n\n## Errors and limits\n\n## `GET /reviews` (the list)\n\n## Errors and limits\n\n<a id="keys"></a>\n',
  );

  function brokenIn(markdown: string): string[] {
    writeFileSync(join(root, 'README.md'), markdown);
    return checkLinks(root, ['README.md']).map((b) => `${b.line}:${b.target}`);
  }

  it('accepts links to files, folders, images, headings (GitHub slugs, repeats numbered) and ids', () => {
    expect(
      brokenIn(
        [
          '# Front page',
          '[api](docs/api.md) [dir](docs/) ![shot](docs/images/shot.png) [self](#front-page)',
          '[errors](docs/api.md#errors-and-limits) [again](docs/api.md#errors-and-limits-1)',
          '[list](./docs/api.md#get-reviews-the-list) [keys](docs/api.md#keys) [web](https://example.org/x#y)',
          '[ref]: docs/api.md#api-reference',
          '```',
          '[inside a code block](nowhere.md)',
          '```',
          'and `[inline code](nowhere.md)`',
        ].join('\n'),
      ),
    ).toEqual([]);
  });

  it('reports a link to a missing file, with its line', () => {
    expect(brokenIn('# Front page\n\nSee [the guide](docs/gide.md).\n')).toEqual(['3:docs/gide.md']);
  });

  it('reports an anchor no heading of the target has, in another file and in the same file', () => {
    expect(brokenIn('# Front page\n[a](docs/api.md#errors)\n[b](#front)\n[c](docs/api.md#errors-and-limits-2)\n')).toEqual([
      '2:docs/api.md#errors',
      '3:#front',
      '4:docs/api.md#errors-and-limits-2',
    ]);
  });

  it('reports a link that leaves the repository', () => {
    expect(brokenIn('[spec](../shared/spec.md)\n')).toEqual(['1:../shared/spec.md']);
  });

  it('slugs headings the way GitHub does', () => {
    expect(slug('Plans and rate limits')).toBe('plans-and-rate-limits');
    expect(slug('`GET /api/v1/docs`: the reference')).toBe('get-apiv1docs-the-reference');
    expect(slug('What runs where (tests)')).toBe('what-runs-where-tests');
    expect(slug('Scaling out: MongoDB + Redis + `WORKERS`')).toBe('scaling-out-mongodb--redis--workers');
    expect([...anchors('# A\n# A\n```\n# not a heading\n```\n')]).toEqual(['a', 'a-1']);
  });
});
