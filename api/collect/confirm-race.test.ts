/**
 * A reviewer who confirms the moment the mail arrives may meet the mail
 * job's own write (it stamps `mailSentAt` once the relay took the mail):
 * the confirmation must still publish, never answer "expired or used".
 * Seen in a two-instance run on a loaded machine; here the mail job's write
 * is made to land between the confirmation's read and its write.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { EmbeddedStore } from '../store/embedded/store.ts';
import type { Store } from '../store/types.ts';
import type { CollectStore } from '../store/collect-types.ts';
import { createLogger } from '../logger.ts';
import { InProcessKeyedQueue } from '../jobs/keyed-in-process.ts';
import { CollectService, type MailWork } from './service.ts';

const dir = mkdtempSync(join(tmpdir(), 'confirm-race-'));
let store: Store;
beforeAll(async () => {
  store = await EmbeddedStore.open(dir);
});
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

it('publishes a confirmation that raced the mail job’s own write to the submission', async () => {
  const stamp = '2026-11-20T10:00:00.000Z';
  await store.orgs.create({ id: 'org_race', name: 'Race shop', plan: 'growth', rateLimit: null, language: 'en', createdAt: stamp, updatedAt: stamp });
  let clock = Date.parse(stamp);
  const now = () => new Date(clock++); // every write its own instant, as on a real clock
  const mails: string[] = [];
  // The mail job's stamp, held back until the confirmation has read the submission.
  let held: (() => Promise<unknown>) | null = null;
  let stamped = false;
  const collect: CollectStore = {
    ...store.collect,
    update: async (next, expect) => {
      if (next.mailSentAt !== null && !next.confirmed && !stamped) {
        stamped = true;
        held = () => store.collect.update(next, expect);
        return next; // the job believes it wrote; the write lands later
      }
      if (next.confirmed && held) {
        const write = held;
        held = null;
        await write();
      }
      return store.collect.update(next, expect);
    },
  };
  const racing = Object.assign(Object.create(store) as Store, { collect });
  const service = new CollectService({
    store: racing, secretsKey: Buffer.alloc(32, 9), publicUrl: 'https://reviews.example', logger: createLogger('silent'), now,
    mailer: { send: async (mail) => void mails.push(mail.confirmUrl) },
  });
  await service.start(new InProcessKeyedQueue<MailWork>(createLogger('silent')));
  const { collectId } = await service.link('org_race');
  const page = (await service.page(collectId, null))!;
  const token = service.formToken(page);
  clock += 3_000;
  const sent = await service.submit(page, token, { rating: '2', content: 'Slow delivery', authorName: 'Ode', email: 'ode@mail.example', consent: true }, 'en');
  expect(sent.ok).toBe(true);
  const deadline = Date.now() + 10_000;
  while ((mails.length === 0 || held === null) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  expect(mails).toHaveLength(1);
  const confirmToken = mails[0]!.split('/r/confirm/')[1]!;
  expect(await service.confirm(confirmToken)).toBe('published');
  const reviews = await store.reviews.list({ orgId: 'org_race', limit: 10, offset: 0 });
  expect(reviews.items.map((r) => [r.platform, r.content, r.isVerified])).toEqual([['DIRECT', 'Slow delivery', false]]);
  // Used once: the same link again is gone.
  expect(await service.confirm(confirmToken)).toBe('gone');
});
