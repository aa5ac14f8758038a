/**
 * A request whose headers arrive before its sender is removed or demoted, and
 * whose body arrives after (issue 25 review H1): what it may do is decided
 * when it is complete. Each held request waits for the server's
 * `100 Continue` (the server has parsed its headers and started on it) before
 * the Owner acts, then sends its body: refused, nothing written, nothing audited.
 */
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../test/harness.ts';
import { Client } from './test-client.ts';

const PASSWORD = 'a long enough password';

describe('dashboard requests held open across a removal or demotion', () => {
  let t: TestService;
  let agent: Agent;
  let ca: string;

  beforeAll(async () => {
    t = await startTestService({ redis: false });
    ca = readFileSync(join(t.dataDir, 'tls-cert.pem'), 'utf8');
    agent = new Agent({ ca, keepAlive: true, servername: 'localhost' });
  });
  afterAll(async () => {
    agent?.destroy();
    await t?.close();
  });

  async function person(orgId: string, email: string, role: string): Promise<{ id: string; client: Client }> {
    const res = await t.admin('POST', '/admin/users', { orgId, email, role, password: PASSWORD });
    expect(res.status).toBe(201);
    const client = new Client(t, agent);
    expect((await client.signIn(email, PASSWORD)).status).toBe(200);
    return { id: res.body.id as string, client };
  }

  /**
   * Sends the headers (with `Expect: 100-continue`) and resolves `started` once
   * the server has answered 100 Continue; `finish()` then sends the body.
   */
  function held(c: Client, method: string, path: string, payload: unknown) {
    const body = Buffer.from(JSON.stringify(payload));
    const req = request({
      host: '127.0.0.1',
      port: t.service.ports.https,
      path,
      method,
      agent: false,
      ca,
      servername: 'localhost',
      headers: { cookie: c.cookieHeader(), origin: c.origin, 'x-csrf-token': c.csrf, 'content-type': 'application/json', 'content-length': String(body.length), expect: '100-continue' },
    });
    const started = new Promise<void>((resolve) => req.on('continue', () => resolve()));
    const answer = new Promise<{ status: number; body: Record<string, unknown> }>((resolve, reject) => {
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown> }));
      });
      req.on('error', reject);
    });
    req.flushHeaders();
    return { started, answer, finish: () => req.end(body) };
  }

  const actions = [
    { name: 'creates an API key', send: (_puppet: string) => ['POST', '/dashboard/api/keys', { name: 'after the change' }] as const },
    { name: 'promotes a puppet to Admin', send: (puppet: string) => ['PATCH', `/dashboard/api/members/${puppet}`, { role: 'admin' }] as const },
    { name: 'invites someone', send: (_puppet: string) => ['POST', '/dashboard/api/invitations', { email: 'friend@held.example', role: 'admin' }] as const },
  ];
  const changes = [
    { name: 'removed', expected: [403, 'csrf_failed'], apply: (owner: Client, id: string) => owner.send('DELETE', `/dashboard/api/members/${id}`), status: 204 },
    { name: 'demoted to Member', expected: [403, 'forbidden_role'], apply: (owner: Client, id: string) => owner.send('PATCH', `/dashboard/api/members/${id}`, { role: 'member' }), status: 200 },
  ];

  let round = 0;
  for (const change of changes) {
    for (const action of actions) {
      it(`refuses an Admin's held request that ${action.name} once the Admin was ${change.name}: nothing written, nothing audited`, async () => {
        round++;
        const { orgId } = await t.org('growth');
        const owner = await person(orgId, `owner${round}@held.example`, 'owner');
        const admin = await person(orgId, `admin${round}@held.example`, 'admin');
        const puppet = await person(orgId, `puppet${round}@held.example`, 'member');
        const keysBefore = ((await t.admin('GET', `/admin/keys?orgId=${orgId}`)).body.data as unknown[]).length;
        const auditBefore = ((await t.admin('GET', `/admin/orgs/${orgId}/audit`)).body.data as unknown[]).length;

        const [method, path, payload] = action.send(puppet.id);
        const h = held(admin.client, method, path, payload);
        await h.started;
        expect((await change.apply(owner.client, admin.id)).status).toBe(change.status);
        h.finish();
        const answer = await h.answer;
        expect([answer.status, answer.body.error]).toEqual(change.expected);

        expect(((await t.admin('GET', `/admin/keys?orgId=${orgId}`)).body.data as unknown[]).length).toBe(keysBefore);
        expect((await t.service.store.people.users.member(puppet.id, orgId))?.role).toBe('member');
        expect(await t.service.store.people.invitations.listByOrg(orgId)).toEqual([]);
        // Only the Owner's own change was recorded since.
        const audit = (await t.admin('GET', `/admin/orgs/${orgId}/audit`)).body.data as { action: string; actor: { email: string } }[];
        expect(audit.slice(0, audit.length - auditBefore).map((r) => [r.action, r.actor.email])).toEqual([[change.name === 'removed' ? 'member.removed' : 'member.role_changed', `owner${round}@held.example`]]);
      });
    }
  }

  it('refuses a held promotion to Owner by an Owner demoted meanwhile', async () => {
    const { orgId } = await t.org('growth');
    const first = await person(orgId, 'first@owners.example', 'owner');
    const second = await person(orgId, 'second@owners.example', 'owner');
    const puppet = await person(orgId, 'puppet@owners.example', 'member');
    const h = held(second.client, 'PATCH', `/dashboard/api/members/${puppet.id}`, { role: 'owner' });
    await h.started;
    expect((await first.client.send('PATCH', `/dashboard/api/members/${second.id}`, { role: 'admin' })).status).toBe(200);
    h.finish();
    const answer = await h.answer;
    expect([answer.status, answer.body.error]).toEqual([403, 'forbidden_role']);
    expect((await t.service.store.people.users.member(puppet.id, orgId))?.role).toBe('member');
  });

  it('refuses a change whose body is over 64 KiB with 413, and one that is not JSON with 400, writing nothing', async () => {
    const { orgId } = await t.org('growth');
    const admin = await person(orgId, 'large@held.example', 'admin');
    const large = await admin.client.send('POST', '/dashboard/api/keys', { name: 'x'.repeat(70_000) });
    expect([large.status, large.body.error]).toEqual([413, 'payload_too_large']);
    const broken = await admin.client.send('POST', '/dashboard/api/keys', '{"name": ', { 'content-type': 'application/json' });
    expect([broken.status, broken.body.error]).toEqual([400, 'bad_request']);
    expect((await t.admin('GET', `/admin/keys?orgId=${orgId}`)).body.data).toHaveLength(1);
  });

  it('still takes an ordinary request whose body comes after its headers', async () => {
    const { orgId } = await t.org('growth');
    const admin = await person(orgId, 'ordinary@held.example', 'admin');
    const h = held(admin.client, 'POST', '/dashboard/api/keys', { name: 'slow but fine' });
    await h.started;
    h.finish();
    expect((await h.answer).status).toBe(201);
  });
});
