/**
 * npm run bench:widget: Lighthouse (the `lighthouse` package, Debian's
 * Chromium, its default mobile settings: 4x CPU slowdown, slow 4G) on a host
 * page without a widget and with each layout, printed as a table with the
 * difference each widget makes. A benchmark, not a test: figures move with
 * the machine's load.
 *
 *   npm run bench:widget [-- --runs 3]     median of N runs per page
 *   npm run bench:widget -- --only carousel,grid     those layouts (and the page without a widget)
 */
import { launch } from 'chrome-launcher';
import lighthouse from 'lighthouse';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { allFixtures } from '../e2e/support/fixtures.ts';
import { startWidgetOrigin } from '../e2e/support/servers.ts';
import { snippetFor } from '../widget/src/snippet.ts';
import { ROOT, flag } from './support.ts';

const PAGES: [string, string | null][] = [
  ['no widget', null],
  ['carousel', 'wdg_four_carousel'],
  ['grid', 'wdg_four_grid'],
  ['list', 'wdg_four_list'],
  ['badge', 'wdg_four_badge'],
];

interface Row {
  page: string;
  performance: number;
  accessibility: number;
  bestPractices: number;
  seo: number;
  tbt: number;
  /** The longest main-thread task Lighthouse saw, ms. */
  longest: number;
  cls: number;
  jsBytes: number;
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<void> {
  const runs = flag('runs', 3);
  const only = process.argv.indexOf('--only');
  const shown = only === -1 ? PAGES : PAGES.filter(([name, id]) => !id || process.argv[only + 1]!.split(',').includes(name));
  // Without avatars: the fixtures' pictures live on a made-up origin the e2e tests answer themselves.
  const fixtures = Object.fromEntries(
    Object.entries(allFixtures()).map(([id, data]) => [id, { ...data, reviews: data.reviews.map((r) => ({ ...r, authorAvatar: null })) }]),
  );
  const widget = await startWidgetOrigin({ fixtures });
  const template = readFileSync(join(ROOT, 'bench', 'host-page.html'), 'utf8');
  // One host page per layout: the same page with the snippet pasted, or with nothing.
  const pages = new Map(
    PAGES.map(([name, id]) => [
      name,
      template.replace('{{BENCH}}', id ? snippetFor({ origin: widget.origin, widgetId: id, height: fixtures[id]!.height }) : ''),
    ]),
  );
  // The host pages, on another origin than the widget (localhost vs 127.0.0.1), as in production.
  const { createServer } = await import('node:http');
  const server = createServer((req, res) => {
    const name = decodeURIComponent((req.url ?? '/').slice(1));
    const html = pages.get(name);
    res.writeHead(html ? 200 : 404, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' });
    res.end(html ?? 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const base = `http://localhost:${typeof address === 'object' && address ? address.port : 0}`;

  const chrome = await launch({
    chromePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    chromeFlags: ['--headless=new', '--no-sandbox', '--disable-gpu'],
  });
  const rows: Row[] = [];
  try {
    for (const [name] of shown) {
      const samples: Row[] = [];
      for (let i = 0; i < runs; i++) {
        const result = await lighthouse(`${base}/${encodeURIComponent(name)}`, {
          port: chrome.port,
          output: 'json',
          logLevel: 'error',
          onlyCategories: ['performance', 'accessibility', 'best-practices', 'seo'],
        });
        if (!result) throw new Error(`lighthouse returned nothing for ${name}`);
        const { categories, audits } = result.lhr;
        const scripts = (audits['resource-summary']?.details as { items?: { resourceType: string; transferSize: number }[] } | undefined)?.items ?? [];
        samples.push({
          page: name,
          performance: Math.round((categories.performance?.score ?? 0) * 100),
          accessibility: Math.round((categories.accessibility?.score ?? 0) * 100),
          bestPractices: Math.round((categories['best-practices']?.score ?? 0) * 100),
          seo: Math.round((categories.seo?.score ?? 0) * 100),
          tbt: Math.round(audits['total-blocking-time']?.numericValue ?? NaN),
          longest: Math.round(Math.max(0, ...((audits['long-tasks']?.details as { items?: { duration: number }[] } | undefined)?.items ?? []).map((t) => t.duration))),
          cls: audits['cumulative-layout-shift']?.numericValue ?? NaN,
          jsBytes: scripts.find((s) => s.resourceType === 'script')?.transferSize ?? 0,
        });
      }
      const pick = (key: keyof Omit<Row, 'page'>) => median(samples.map((s) => s[key]));
      rows.push({
        page: name,
        performance: pick('performance'),
        accessibility: pick('accessibility'),
        bestPractices: pick('bestPractices'),
        seo: pick('seo'),
        tbt: pick('tbt'),
        longest: pick('longest'),
        cls: pick('cls'),
        jsBytes: pick('jsBytes'),
      });
    }
  } finally {
    await chrome.kill();
    await new Promise((resolve) => server.close(resolve));
    await widget.close();
  }
  const none = rows[0]!;
  const delta = (value: number, base: number, unit = '') => (value === base ? '' : ` (${value > base ? '+' : ''}${value - base}${unit})`);
  console.log(`Lighthouse ${runs} run(s) per page, median, mobile settings (4x CPU, slow 4G); ${new Date().toISOString()}`);
  console.log('| Page | Performance | Accessibility | Best practices | SEO | TBT (ms) | Longest task (ms) | CLS | JavaScript (bytes, transferred) |');
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) {
    console.log(
      `| ${r.page} | ${r.performance}${delta(r.performance, none.performance)} | ${r.accessibility}${delta(r.accessibility, none.accessibility)} | ${r.bestPractices}${delta(r.bestPractices, none.bestPractices)} | ${r.seo}${delta(r.seo, none.seo)} | ${r.tbt}${delta(r.tbt, none.tbt)} | ${r.longest} | ${r.cls.toFixed(3)} | ${r.jsBytes}${delta(r.jsBytes, none.jsBytes)} |`,
    );
  }
}

await main();
