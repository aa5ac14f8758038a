/**
 * The last-Owner rule under concurrent requests (issue 25 item 4), on the
 * embedded store and on MongoDB (FerretDB): two Owners demoting each other at
 * once, an Owner removed by the operator while the other demotes themself.
 * Exactly one change wins; the organization always keeps an Owner.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedStore } from '../store/embedded/store.ts';
import type { Store } from '../store/types.ts';
import { startTestService, type TestService } from '../test/harness.ts';
import { describeOn, ferretdbTarget, openMongoStore } from '../test/mongo-suites.ts';
import { Client } from './test-client.ts';

const PASSWORD = 'a long enough password';

const subjects: { name: string; on: (name: string, fn: () => void) => void; open(): Promise<{ store: Store; cleanup(): Promise<void> }> }[] = [
  {
    name: 'embedded',
    on: describe,
    async open() {
      const dir = mkdtempSync(join(tmpdir(), 'members-race-'));
      const store = await EmbeddedStore.open(dir);
      return { store, cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
    },
  },
  {
    name: 'mongodb',
    on: (name, fn) => describeOn(ferretdbTarget(), name, fn),
    async open() {
      const store = await openMongoStore(ferretdbTarget(), 'members_race');
      return { store, cleanup: async () => store.dropDatabase() };
    },
  },
];

for (const subject of subjects) {
  subject.on(`last Owner under concurrent requests (${subject.name})`, () => {
    let t: TestService;
    let agent: Agent;
    let cleanup: () => Promise<void>;

    beforeAll(async () => {
      const opened = await subject.open();
      cleanup = opened.cleanup;
      t = await startTestService({ store: opened.store, redis: false });
      agent = new Agent({ ca: readFileSync(join(t.dataDir, 'tls-cert.pem'), 'utf8'), keepAlive: true, servername: 'localhost' });
    }, 60_000);
    afterAll(async () => {
      agent?.destroy();
      await t?.close();
      await cleanup?.();
    });

    async function twoOwners(round: number): Promise<{ orgId: string; ids: [string, string]; clients: [Client, Client] }> {
      const { orgId } = await t.org('starter');
      const ids: string[] = [];
      const clients: Client[] = [];
      for (const name of ['a', 'b']) {
        const email = `${name}${round}@race.example`;
        const res = await t.admin('POST', '/admin/users', { orgId, email, role: 'owner', password: PASSWORD });
        ids.push(res.body.id as string);
        const c = new Client(t, agent);
        expect((await c.signIn(email, PASSWORD)).status).toBe(200);
        clients.push(c);
      }
      return { orgId, ids: ids as [string, string], clients: clients as [Client, Client] };
    }

    const owners = async (orgId: string) =>
      ((await t.admin('GET', `/admin/users?orgId=${orgId}`)).body.data as { role: string }[]).filter((u) => u.role === 'owner').length;

    it('lets one of two Owners demoting each other at once win, and answers the other 409 last_owner', async () => {
      for (let round = 0; round < 3; round++) {
        const { orgId, ids, clients } = await twoOwners(round);
        const answers = await Promise.all([
          clients[0].send('PATCH', `/dashboard/api/members/${ids[1]}`, { role: 'admin' }),
          clients[1].send('PATCH', `/dashboard/api/members/${ids[0]}`, { role: 'member' }),
        ]);
        const statuses = answers.map((a) => a.status).sort();
        // 403: the loser was demoted first, so it may no longer touch the Owner role; 409: it still was an Owner.
        expect(statuses[0]).toBe(200);
        expect([403, 409]).toContain(statuses[1]);
        expect(await owners(orgId)).toBe(1);
      }
    });

    it('keeps an Owner when the operator removes one while the other demotes themself', async () => {
      for (let round = 10; round < 13; round++) {
        const { orgId, ids, clients } = await twoOwners(round);
        const answers = await Promise.all([
          t.admin('DELETE', `/admin/users/${ids[0]}`),
          clients[1].send('PATCH', `/dashboard/api/members/${ids[1]}`, { role: 'admin' }),
        ]);
        expect(answers.map((a) => a.status).filter((s) => s === 409)).toHaveLength(1);
        expect(await owners(orgId)).toBe(1);
      }
    });
  });
}
