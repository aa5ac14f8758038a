/**
 * The MongoDB store's server goes away mid-run, with reads and imports in
 * flight, and comes back: requests answer 503 service_unavailable with
 * Retry-After (never a 500), /readyz names the store, service resumes by
 * itself, and every import that was acknowledged is still there.
 */
import { rmSync } from 'node:fs';
import { afterAll, expect, inject, it } from 'vitest';
import { generateFixture } from '../reviews/fixtures.ts';
import { startFerretdb, type RunningFerretdb } from '../test/ferretdb.ts';
import { startTestService, type TestService } from '../test/harness.ts';
import { describeOn, ferretdbTarget } from '../test/mongo-suites.ts';
import { MongoStore } from './mongo/store.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describeOn(ferretdbTarget(), 'the MongoDB store going away and coming back', () => {
  let ferret: RunningFerretdb | undefined;
  let t: TestService | undefined;
  let store: MongoStore | undefined;
  afterAll(async () => {
    await t?.close();
    await store?.close();
    await ferret?.stop();
    if (ferret) rmSync(ferret.dir, { recursive: true, force: true });
  });

  it('answers 503 with Retry-After while it is away, names it in /readyz, resumes by itself and loses nothing acknowledged', async () => {
    const bin = inject('ferretdb').bin;
    ferret = await startFerretdb(bin);
    store = await MongoStore.connect(ferret.url, 'outage');
    t = await startTestService({ store });
    const svc = t;
    const { orgId, key } = await svc.org('growth', 1_000_000);
    const fixture = generateFixture({ sizes: [400] });
    // About the organization, not a product: this organization has no catalog, where a product's id would reject the line.
    // A reply goes in a file as its two columns (replyText, replyDate), never as the API's `reply` object.
    const inputs = fixture.inputs(fixture.orgIds[0]!).map(({ reply, ...r }) => ({ ...r, productId: null, ...(reply && { replyText: reply.text, replyDate: reply.date }) }));

    // Imports of 5 reviews each, one after another, and reads alongside, until told to stop.
    const acknowledged: string[] = [];
    const importStatuses: number[] = [];
    const readStatuses: number[] = [];
    let stop = false;
    let sent = 0;
    const importer = (async () => {
      while (!stop && sent + 5 <= inputs.length) {
        const batch = inputs.slice(sent, sent + 5);
        sent += 5;
        const res = await fetch(`${svc.service.adminUrl}/admin/orgs/${orgId}/reviews?format=ndjson`, {
          method: 'POST',
          headers: { authorization: `Bearer ${svc.service.adminToken}`, 'content-type': 'application/x-ndjson' },
          body: batch.map((r) => JSON.stringify(r)).join('\n'),
        }).catch(() => null);
        importStatuses.push(res?.status ?? 0);
        if (res?.status === 200) {
          // Acknowledged: every line the answer did not reject (none should be: the test below says so).
          const body = (await res.json()) as { rejected: { line: number }[] };
          const rejected = new Set(body.rejected.map((r) => r.line));
          expect(body.rejected).toEqual([]);
          acknowledged.push(...batch.filter((_, i) => !rejected.has(i + 1)).map((r) => `${r.platform}/${r.externalId}`));
        } else await res?.text();
        await sleep(20);
      }
    })();
    const reader = (async () => {
      while (!stop) {
        const res = await svc.get('/api/v1/reviews?limit=5', { key });
        readStatuses.push(res.status);
        if (res.status === 503) {
          expect(res.headers['retry-after']).toMatch(/^\d+$/);
          expect((res.body as { error: string }).error).toBe('service_unavailable');
        }
        await sleep(20);
      }
    })();

    while (acknowledged.length < 15) await sleep(50);
    // Gone without warning, in the middle of whatever was in flight.
    ferret.process.kill('SIGKILL');
    await new Promise((r) => ferret!.process.once('exit', r));

    const during = await svc.get('/api/v1/reviews', { key });
    expect(during.status).toBe(503);
    expect(Number(during.headers['retry-after'])).toBeGreaterThan(0);
    expect(during.body).toMatchObject({ error: 'service_unavailable', details: [{ component: 'store' }] });
    const ready = await svc.get('/readyz');
    expect(ready.status).toBe(503);
    expect((ready.body as { message: string }).message).toMatch(/store \(mongodb\)/);
    expect((await svc.get('/healthz')).status).toBe(200);

    // Back on the same port with the same files; the service is not restarted.
    ferret = await startFerretdb(bin, { port: ferret.port, dir: ferret.dir });
    const deadline = Date.now() + 20_000;
    while ((await svc.get('/readyz')).status !== 200) {
      expect(Date.now()).toBeLessThan(deadline);
      await sleep(200);
    }
    const before = acknowledged.length;
    while (acknowledged.length < before + 10 && sent + 5 <= inputs.length) await sleep(50);
    stop = true;
    await Promise.all([importer, reader]);

    expect(importStatuses.filter((s) => s !== 200 && s !== 503 && s !== 0)).toEqual([]);
    expect(readStatuses.filter((s) => s !== 200 && s !== 503)).toEqual([]);
    expect(readStatuses).toContain(503);
    expect((await svc.get('/api/v1/reviews', { key })).status).toBe(200);
    const stored = await svc.service.store.reviews.list({ orgId, limit: 10_000, offset: 0 });
    const have = new Set(stored.items.map((r) => `${r.platform}/${r.externalId}`));
    expect(acknowledged.filter((k) => !have.has(k)), `statuses ${importStatuses.join(",")}; acknowledged ${acknowledged.join(" ")}`).toEqual([]);
    expect(acknowledged.length).toBeGreaterThanOrEqual(before + 10);
  }, 90_000);
});
