/**
 * End-to-end tests of the widget in a real Chromium (Debian's, or
 * CHROMIUM_PATH): host pages on one local origin, the widget on another.
 * Screenshots of every layout are kept under test-results/ as artifacts.
 */
import { defineConfig } from '@playwright/test';

export default defineConfig({
  testDir: 'e2e',
  testMatch: '**/*.spec.ts',
  outputDir: 'test-results/e2e',
  globalSetup: './e2e/support/global-setup.ts',
  fullyParallel: false,
  workers: 1,
  retries: 0,
  timeout: 30_000,
  reporter: [['list']],
  use: {
    browserName: 'chromium',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        '--disable-quic',
      ],
    },
    ignoreHTTPSErrors: true,
    viewport: { width: 1100, height: 900 },
    locale: 'en-US',
    timezoneId: 'UTC',
  },
});
