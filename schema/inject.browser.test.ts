/**
 * The serialized JSON-LD in a real HTML parser (Chromium): hostile review text
 * must neither run script nor end the element, and the crawler-visible text
 * must parse back to the document.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { buildWidgetJsonLd } from './build.ts';
import { jsonLdScriptTag } from './inject.ts';
import { makeReview, makeWidget, statsOf } from './testing/fixtures.ts';

// No double quotes in the scripts: JSON.stringify would escape them and break the
// payload itself, which would make the control below pass for the wrong reason.
const PAYLOADS = [
  '</script><script>window.__pwned = 1</script>',
  '</ScRiPt\n><img src=x onerror=window.__pwned=2>',
  '<!--<script>window.__pwned = 3</script>-->',
  '<script>window.__pwned = 4</script>',
  'line\u2028separator\u2029paragraph',
];

let browser: Browser;

beforeAll(async () => {
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox'],
  });
});

afterAll(async () => {
  await browser?.close();
});

interface PageFacts {
  pwned: unknown;
  scripts: number;
  jsonLd: string[];
  images: number;
  after: boolean;
}

async function parseInChromium(head: string): Promise<PageFacts> {
  const page = await browser.newPage();
  try {
    await page.setContent(`<!doctype html><html><head>${head}</head><body><p id="after">after</p></body></html>`);
    return await page.evaluate(() => ({
      pwned: (window as unknown as { __pwned?: unknown }).__pwned,
      scripts: document.scripts.length,
      jsonLd: [...document.querySelectorAll('script[type="application/ld+json"]')].map((s) => s.textContent ?? ''),
      images: document.images.length,
      after: document.getElementById('after') !== null,
    }));
  } finally {
    await page.close();
  }
}

describe('JSON-LD script element in Chromium', () => {
  const reviews = PAYLOADS.map((p, i) => makeReview({ authorName: p, content: p, rating: (i % 5) + 1 }));
  const widget = makeWidget({ name: PAYLOADS[0], brand: PAYLOADS[2] });
  const doc = buildWidgetJsonLd({ widget, stats: statsOf(reviews), reviews });

  it('keeps hostile review text inert and the document intact', async () => {
    const facts = await parseInChromium(jsonLdScriptTag(doc, 'wgt_1'));
    expect(facts).toMatchObject({ pwned: undefined, scripts: 1, images: 0, after: true });
    expect(facts.jsonLd).toHaveLength(1);
    expect(JSON.parse(facts.jsonLd[0] ?? '')).toEqual(JSON.parse(JSON.stringify(doc)));
  });

  it('would be broken by plain JSON.stringify (control)', async () => {
    const naive = `<script type="application/ld+json">${JSON.stringify(doc)}</script>`;
    const facts = await parseInChromium(naive);
    expect(facts.pwned).toBeDefined();
  });
});
