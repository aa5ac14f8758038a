/**
 * Reviews from the page that wait for their email confirmation hold an email
 * address; once their link expired (CONFIRM_DAYS) they can never be
 * published, so the service's periodic upkeep forgets them, in batches,
 * while a confirmed one, one still in time and one held for a person stay.
 * The service's clock is injected: a week passes in one assignment.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { EmbeddedStore } from '../store/embedded/store.ts';
import type { Store } from '../store/types.ts';
import { createLogger } from '../logger.ts';
import { InProcessKeyedQueue } from '../jobs/keyed-in-process.ts';
import { CollectService, CONFIRM_DAYS, type MailWork } from './service.ts';

const dir = mkdtempSync(join(tmpdir(), 'collect-expire-'));
let store: Store;
let service: CollectService;
let queue: InProcessKeyedQueue<MailWork>;
beforeAll(async () => {
  store = await EmbeddedStore.open(dir);
});
afterAll(async () => {
  service?.close();
  await queue?.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const DAY = 86_400_000;

it('forgets expired unconfirmed submissions on its periodic upkeep, and keeps every other one', async () => {
  const start = Date.parse('2026-11-20T10:00:00.000Z');
  await store.orgs.create({ id: 'org_exp', name: 'Expiry shop', plan: 'growth', rateLimit: null, language: 'en', createdAt: new Date(start).toISOString(), updatedAt: new Date(start).toISOString() });
  let clock = start;
  const now = () => new Date(clock);
  const mails: { to: string; confirmUrl: string }[] = [];
  service = new CollectService({
    store, secretsKey: Buffer.alloc(32, 7), publicUrl: 'https://reviews.example', logger: createLogger('silent'), now,
    mailer: { send: async (mail) => void mails.push({ to: mail.to, confirmUrl: mail.confirmUrl }) },
    // Often and in small batches: three expired ones take two store calls.
    expireEveryMs: 25, expireBatch: 2,
  });
  queue = new InProcessKeyedQueue<MailWork>(createLogger('silent'));
  await service.start(queue);
  const { collectId } = await service.link('org_exp');
  const page = (await service.page(collectId, null))!;

  const submit = async (name: string): Promise<string> => {
    const token = service.formToken(page);
    clock += 5_000; // the form's minimum age
    const sent = await service.submit(page, token, { rating: '3', content: `Review by ${name}`, authorName: name, email: `${name.toLowerCase()}@mail.example`, consent: true }, 'en');
    expect(sent.ok).toBe(true);
    const pending = await store.collect.listByState('org_exp', 'pending');
    return pending.find((s) => s.authorName === name)!.id;
  };
  const early = [await submit('Ana'), await submit('Ben'), await submit('Cai')];
  const confirmedEarly = await submit('Dev');
  await vi.waitFor(() => expect(mails.map((m) => m.to)).toContain('dev@mail.example'), { timeout: 10_000 });
  expect(await service.confirm(mails.find((m) => m.to === 'dev@mail.example')!.confirmUrl.split('/r/confirm/')[1]!)).toBe('published');
  clock += 3 * DAY;
  const later = await submit('Eli');

  // A week after the early ones: they expired; Eli's link still works for three days.
  clock = start + CONFIRM_DAYS * DAY + 60_000;
  await vi.waitFor(async () => {
    for (const id of early) expect(await store.collect.get(id), id).toBeNull();
  }, { timeout: 10_000, interval: 50 });
  expect((await store.collect.get(confirmedEarly))?.state).toBe('published');
  expect((await store.collect.get(later))?.hold).toBe('awaiting_confirmation');
  expect((await store.reviews.list({ orgId: 'org_exp', limit: 10, offset: 0 })).items.map((r) => r.authorName)).toEqual(['Dev']);
  // An expired link is gone, as before the cleanup.
  expect(await service.confirm(mails.find((m) => m.to === 'ana@mail.example')!.confirmUrl.split('/r/confirm/')[1]!)).toBe('gone');

  // Once Eli's expires too, it goes on a later round.
  clock += 4 * DAY;
  await vi.waitFor(async () => expect(await store.collect.get(later)).toBeNull(), { timeout: 10_000, interval: 50 });
  expect((await store.collect.get(confirmedEarly))?.state).toBe('published');
});
