/**
 * The Playwright `test` for widget specs: one widget origin and one host
 * origin per worker, avatars answered locally, and helpers to wait for and
 * look inside the widgets' shadow roots.
 */
import { test as base, expect, type Page } from '@playwright/test';
import { AVATAR_ORIGIN, allFixtures } from './fixtures.ts';
import { fixtureHeight, startHostOrigin, startWidgetOrigin, type RunningOrigin } from './servers.ts';
import { widgetHtml } from '../../api/widgets/widget-html.tsx';

export interface Origins {
  widget: RunningOrigin;
  host: RunningOrigin;
}

/** The strict policy of csp.html: only the widget origin may run script or be fetched. */
export function strictCsp(widgetOrigin: string): string {
  return [
    "default-src 'none'",
    `script-src ${widgetOrigin}`,
    `connect-src ${widgetOrigin}`,
    "img-src https:",
    "style-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

const AVATAR_COLORS: Record<string, string> = { maria: '#e11d48', priya: '#7c3aed', aisha: '#059669', kenji: '#ea580c' };

function avatarSvg(name: string): string {
  const color = AVATAR_COLORS[name] ?? '#0ea5e9';
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 40 40"><rect width="40" height="40" fill="${color}"/><circle cx="20" cy="16" r="7" fill="#fde7d4"/><path d="M6 40c2-9 8-13 14-13s12 4 14 13z" fill="#fde7d4"/></svg>`;
}

export const test = base.extend<{ avatars: void }, { origins: Origins }>({
  origins: [
    async ({}, use) => {
      const fixtures = allFixtures();
      const widget = await startWidgetOrigin({ fixtures });
      const host = await startHostOrigin({
        widgetOrigin: widget.origin,
        heightOf: fixtureHeight(fixtures),
        headers: (page, origin): Record<string, string> => (page === 'csp' ? { 'Content-Security-Policy': strictCsp(origin) } : {}),
        htmlOf: (id, lang) => widgetHtml(fixtures[id]!, lang),
      });
      await use({ widget, host });
      await Promise.all([widget.close(), host.close()]);
    },
    { scope: 'worker' },
  ],
  avatars: [
    async ({ context }, use) => {
      // Pictures over https from a made-up origin: "broken" fails, the others are small SVG faces.
      await context.route(`${AVATAR_ORIGIN}/**`, (route) => {
        const name = /\/(\w+)\.svg$/.exec(route.request().url())?.[1] ?? '';
        if (name === 'broken') return route.fulfill({ status: 404, body: 'gone' });
        return route.fulfill({ status: 200, contentType: 'image/svg+xml', body: avatarSvg(name) });
      });
      await use();
    },
    { auto: true },
  ],
});

export { expect };

/** Waits until `count` widgets have rendered their root inside a shadow root. */
export async function waitForWidgets(page: Page, count: number): Promise<void> {
  await page.waitForFunction(
    (n) => Array.from(document.querySelectorAll('[data-rv-widget]')).filter((el) => el.shadowRoot?.querySelector('.rv')).length >= n,
    count,
  );
}

/** Paths the widget origin served, from `since` on. */
export function servedSince(origins: Origins, since: number): string[] {
  return origins.widget.requests.slice(since);
}
