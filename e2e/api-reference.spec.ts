/**
 * GET /api/v1/docs in Debian's Chromium against the real service: Redoc renders every
 * operation of the OpenAPI document (and its webhooks when it has any), axe finds nothing,
 * no request leaves the service's origin and the CSP refuses nothing the page needs.
 * Screenshots at 1280 and 390 px go to test-results/e2e/.
 */
import { expect, test, type Page } from '@playwright/test';
import { expectNoAxeViolations } from './support/dashboard.ts';
import { startRealService, type RealService } from './support/real-server.ts';

test.describe.configure({ mode: 'serial', timeout: 120_000 });

interface Operation {
  operationId: string;
  summary: string;
}
interface OpenApi {
  paths: Record<string, Record<string, Operation>>;
  webhooks?: Record<string, Record<string, Operation>>;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const operations = (items: Record<string, Record<string, Operation>> = {}): Operation[] =>
  Object.values(items).flatMap((item) => Object.entries(item).filter(([method]) => METHODS.includes(method)).map(([, op]) => op));

let service: RealService;

test.beforeAll(async () => {
  test.setTimeout(150_000);
  service = await startRealService();
});

test.afterAll(async () => {
  await service?.stop();
});

/** Opens the reference; collects every request, console error and CSP refusal on the way. */
async function openReference(page: Page): Promise<{ requests: string[]; problems: string[] }> {
  const requests: string[] = [];
  const problems: string[] = [];
  page.on('request', (r) => requests.push(r.url()));
  page.on('console', (m) => {
    // Failed responses are reported below with their address.
    if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) problems.push(m.text());
  });
  page.on('response', (r) => {
    // The browser's own favicon request is not the reference's (the service's favicon is another change).
    if (r.status() >= 400 && new URL(r.url()).pathname !== '/favicon.ico') problems.push(`${r.status()} ${r.url()}`);
  });
  page.on('pageerror', (e) => problems.push(e.message));
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => console.error(`CSP refused ${e.violatedDirective}: ${e.blockedURI}`));
  });
  await page.goto(`${service.origin}/api/v1/docs`);
  await expect(page.locator('.api-content')).toBeVisible();
  await page.waitForLoadState('networkidle');
  return { requests, problems };
}

test('renders every operation of the document, requests nothing from another origin, and the CSP refuses nothing', async ({ page }) => {
  const doc = (await service.get<OpenApi>('/api/v1/openapi.json')).body;
  const all = operations(doc.paths);
  expect(all.length).toBeGreaterThan(5);
  const { requests, problems } = await openReference(page);
  for (const op of all) {
    await expect(page.locator(`[id="operation/${op.operationId}"]`), op.operationId).toHaveCount(1);
    await expect(page.locator(`[id="operation/${op.operationId}"] h2`).first()).toHaveText(op.summary);
  }
  for (const op of operations(doc.webhooks)) {
    await expect(page.locator(`[id="operation/${op.operationId}"] h2`).first(), `webhook ${op.operationId}`).toHaveText(new RegExp(`^${op.summary.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*Webhook\\s*$`));
  }
  expect(requests.length).toBeGreaterThan(2);
  for (const url of requests) {
    const { protocol, origin } = new URL(url);
    if (protocol === 'data:') continue;
    expect(protocol === 'blob:' ? new URL(url.slice(5)).origin : origin, url).toBe(service.origin);
  }
  expect(problems).toEqual([]);
});

test('renders a webhooks section when the document has one', async ({ page }) => {
  // The document served here has no webhooks yet: the same document with one added, from the same origin.
  const doc = (await service.get<Record<string, unknown>>('/api/v1/openapi.json')).body;
  const webhook = {
    post: {
      operationId: 'reviewCreated',
      summary: 'A review arrived',
      requestBody: { content: { 'application/json': { schema: { type: 'object', properties: { id: { type: 'string' } } } } } },
      responses: { '200': { description: 'Received.' } },
    },
  };
  await page.route('**/api/v1/openapi.json', (route) => route.fulfill({ json: { ...doc, webhooks: { 'review.created': webhook } } }));
  await openReference(page);
  await expect(page.locator('[id="operation/reviewCreated"] h2').first()).toHaveText(/^A review arrived\s*Webhook\s*$/);
  await expect(page.getByRole('menuitem', { name: 'A review arrived' })).toBeVisible();
});

test('axe finds no violations; screenshots at 1280 and 390 px', async ({ page }, testInfo) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await openReference(page);
  await expectNoAxeViolations(page, 'the API reference at 1280 px');
  await page.screenshot({ path: testInfo.outputPath('api-reference-1280.png') });
  await page.setViewportSize({ width: 390, height: 844 });
  await expectNoAxeViolations(page, 'the API reference at 390 px');
  await page.screenshot({ path: testInfo.outputPath('api-reference-390.png') });
});

test('works from the keyboard: search, then an operation opened from its result', async ({ page }) => {
  await openReference(page);
  await page.keyboard.press('Tab');
  const search = page.getByPlaceholder('Search...');
  await expect(search).toBeFocused();
  await page.keyboard.type('statistics');
  await expect(page.getByRole('menuitem', { name: /Review statistics/ }).first()).toBeVisible();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/#tag\/Reviews\/operation\/getStats$/);
});
