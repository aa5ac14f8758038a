/**
 * The cap per organization on stored invitations (CONTRACT §12's pattern for
 * §14): a request that would pass it is refused whole with 409
 * `invitation_limit_reached`, naming the cap; another organization is not
 * touched; an orderRef and email invited before still answer (nothing new).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CollectService } from '../collect/service.ts';
import { createLogger } from '../logger.ts';
import { EmbeddedStore } from '../store/embedded/store.ts';
import { ApiError } from '../errors.ts';
import { InvitationsService } from './service.ts';

let dir: string;
let store: EmbeddedStore;
let invitations: InvitationsService;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'invitation-limit-'));
  store = await EmbeddedStore.open(dir);
  const secretsKey = Buffer.alloc(32, 7);
  const logger = createLogger('silent');
  const collect = new CollectService({ store, secretsKey, publicUrl: 'https://reviews.example.com', logger });
  invitations = new InvitationsService({ store, secretsKey, publicUrl: 'https://reviews.example.com', logger, collect, mails: true, maxPerOrg: 3 });
  for (const id of ['org_a', 'org_b']) await store.orgs.create({ id, name: id, plan: 'growth', rateLimit: null, language: 'en', createdAt: new Date().toISOString(), updatedAt: new Date().toISOString() });
});
afterAll(async () => {
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

it('refuses a request that would pass the cap, creating nothing, and leaves other organizations alone', async () => {
  const first = await invitations.createFromApi('org_a', { data: [{ email: 'a@example.com', orderRef: 'o1' }, { email: 'b@example.com' }] });
  expect(first.map((i) => i.state)).toEqual(['scheduled', 'scheduled']);
  // Scheduled with SMTP_URL: the default delay of 7 days.
  expect(Date.parse(first[0]!.sendAt!) - Date.now()).toBeGreaterThan(6.9 * 86_400_000);
  const refused = await invitations.createFromApi('org_a', { data: [{ email: 'c@example.com' }, { email: 'd@example.com' }] }).catch((err: unknown) => err);
  expect(refused).toBeInstanceOf(ApiError);
  expect((refused as ApiError).status).toBe(409);
  expect((refused as ApiError).toJSON()).toEqual({ error: 'invitation_limit_reached', message: 'An organization may keep at most 3 invitations; these would pass it, so none was created.', details: [] });
  expect(await store.invitations.count('org_a')).toBe(2);
  // A repeat is no new invitation; one more fits.
  const more = await invitations.createFromApi('org_a', { data: [{ email: 'a@example.com', orderRef: 'o1' }, { email: 'c@example.com' }] });
  expect(more[0]!.id).toBe(first[0]!.id);
  expect(await store.invitations.count('org_a')).toBe(3);
  expect((await invitations.createFromApi('org_b', { email: 'a@example.com' }))[0]!.state).toBe('scheduled');
});
