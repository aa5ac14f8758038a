/**
 * Builds the widget and the dashboard once before the end-to-end tests, so they run against the
 * minified output the server serves, and fails early with the install hint
 * when Chromium is missing.
 */
import { existsSync } from 'node:fs';
import { buildWidget } from '../../widget/build.ts';
import { buildDashboard } from '../../dashboard/build.ts';

export default async function globalSetup(): Promise<void> {
  const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (!existsSync(chromium)) {
    throw new Error(`Chromium was not found at ${chromium}: install the Debian package (apt-get install -y chromium) or set CHROMIUM_PATH.`);
  }
  const result = await buildWidget({ log: (line) => console.log(line) });
  if (!result.ok) throw new Error('widget build: size budget exceeded');
  const dashboard = await buildDashboard({ log: (line) => console.log(line) });
  if (!dashboard.ok) throw new Error('dashboard build: size budget exceeded');
}
