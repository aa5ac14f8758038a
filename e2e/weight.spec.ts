/**
 * Weight per layout (issue 12, defect 7): from the widget origin's request
 * log, a page fetches the loader, the chunks of the layouts it shows (and the
 * chunks those import), and its language's catalog: each file once, nothing
 * else. Which files those are comes from the build's manifest (widget/build.ts
 * follows esbuild's metafile); the sizes are the build's business.
 */
import { expect, servedSince, test, waitForWidgets } from './support/test.ts';
import { chunksServed, expectedFiles, widgetFilesServed, widgetManifest } from './support/widget-files.ts';

const PAGES = [
  { page: 'badge-only', layouts: ['badge'], lang: 'de', widgets: 1 },
  { page: 'basic', layouts: ['carousel'], lang: 'en', widgets: 1 },
  { page: 'four', layouts: ['badge', 'carousel', 'grid', 'list'], lang: 'en', widgets: 4 },
];

for (const { page: name, layouts, lang, widgets } of PAGES) {
  test(`the ${name} page fetches only what its layouts need (${layouts.join(', ')}), each file once`, async ({ page, origins }) => {
    const since = origins.widget.requests.length;
    await page.goto(`${origins.host.origin}/${name}.html`);
    await waitForWidgets(page, widgets);
    await page.waitForLoadState('networkidle');
    const served = widgetFilesServed(servedSince(origins, since));
    expect([...served].sort()).toEqual(expectedFiles(layouts, lang));
    expect(new Set(served).size).toBe(served.length);
  });
}

test('a badge-only page loads no framed layout code, a framed page no badge code', async ({ page, origins }) => {
  const { layouts } = widgetManifest();
  let since = origins.widget.requests.length;
  await page.goto(`${origins.host.origin}/badge-only.html`);
  await waitForWidgets(page, 1);
  await page.waitForLoadState('networkidle');
  let chunks = chunksServed(servedSince(origins, since));
  expect(chunks).toContain(`/widget/${layouts.badge}`);
  expect(chunks).not.toContain(`/widget/${layouts.carousel}`);
  // Drawn and named in the page's language all the same.
  await expect(page.locator('[data-rv-widget="wdg_badge_auto"]').getByRole('region')).toHaveAccessibleName(/^Bewertungen/);

  since = origins.widget.requests.length;
  await page.goto(`${origins.host.origin}/basic.html`);
  await waitForWidgets(page, 1);
  await page.waitForLoadState('networkidle');
  chunks = chunksServed(servedSince(origins, since));
  expect(chunks).toContain(`/widget/${layouts.carousel}`);
  expect(chunks).not.toContain(`/widget/${layouts.badge}`);
});
