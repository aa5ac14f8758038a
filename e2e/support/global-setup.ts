/**
 * Builds the widget and the dashboard once before the end-to-end tests, so they run against the
 * minified output the server serves, and fails early with the install hint
 * when Chromium or the fonts the screenshots were drawn with are missing.
 */

/**
 * The screenshots and pixel comparisons (e2e/ssr.spec.ts) are made with Noto as the sans-serif
 * font (Debian's fonts-noto-core, and fonts-noto-cjk for Chinese, Japanese and Korean). With only
 * the fonts Chromium brings (DejaVu, Liberation) texts wrap elsewhere and the list's avatars are
 * drawn a sub-pixel differently after hydration, so the run would not be the same run.
 */
export const FONT_PACKAGES = ['fonts-noto-core', 'fonts-noto-cjk'];

function sansSerif(): string {
  const match = spawnSync('fc-match', ['-f', '%{family}', 'sans-serif'], { encoding: 'utf8' });
  return match.error || match.status !== 0 ? '' : match.stdout;
}
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { buildWidget } from '../../widget/build.ts';
import { buildDashboard } from '../../dashboard/build.ts';

export default async function globalSetup(): Promise<void> {
  const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (!existsSync(chromium)) {
    throw new Error(`Chromium was not found at ${chromium}: install the Debian package (apt-get install -y chromium) or set CHROMIUM_PATH.`);
  }
  const sans = sansSerif();
  if (!/\bNoto Sans\b/.test(sans)) {
    throw new Error(`The e2e screenshots need Noto as the sans-serif font, found "${sans || 'no fontconfig'}": apt-get install -y ${FONT_PACKAGES.join(' ')}`);
  }
  const result = await buildWidget({ log: (line) => console.log(line) });
  if (!result.ok) throw new Error('widget build: size budget exceeded');
  const dashboard = await buildDashboard({ log: (line) => console.log(line) });
  if (!dashboard.ok) throw new Error('dashboard build: size budget exceeded');
}
