/**
 * The dashboard's import upload against hostile or changing circumstances
 * (issue 25 items 1, 2, 3): the uploader removed or demoted mid-upload, slow
 * clients holding slots, and the audit record every import leaves.
 */
import { readFileSync } from 'node:fs';
import type { ClientRequest } from 'node:http';
import { Agent, request } from 'node:https';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { requestDeadline } from '../server.ts';
import { startTestService, type TestService } from '../test/harness.ts';
import { uploadPace, uploadSlots } from './routes/reviews-import.ts';
import { Client } from './test-client.ts';

const PASSWORD = 'a long enough password';
const HEADER = 'platform,externalId,authorName,rating,content,date,language';
const lines = (from: number, to: number, prefix: string) =>
  Array.from({ length: to - from }, (_, i) => `GOOGLE,${prefix}${from + i},Author ${from + i},4,"Good shoes, number ${from + i}.",2026-10-01T10:00:00Z,en`).join('\n') + '\n';

interface Upload {
  req: ClientRequest;
  /** The answer's status, or 0 when the connection was cut without one. */
  ended: Promise<{ status: number; body: Record<string, unknown> }>;
}

describe('dashboard import upload: uploader checks, pace, slots, audit', () => {
  let t: TestService;
  let agent: Agent;
  let ca: string;
  const pace = { ...uploadPace };
  const slots = { ...uploadSlots };

  function upload(c: Client, declared: number, format = 'csv'): Upload {
    const req = request({
      host: '127.0.0.1',
      port: t.service.ports.https,
      path: `/dashboard/api/reviews/import?format=${format}`,
      method: 'POST',
      agent: false,
      ca,
      servername: 'localhost',
      headers: { cookie: c.cookieHeader(), origin: t.service.config.publicUrl, 'x-csrf-token': c.csrf, 'content-type': format === 'json' ? 'application/json' : 'text/csv', 'content-length': String(declared) },
    });
    const ended = new Promise<{ status: number; body: Record<string, unknown> }>((resolve) => {
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown> }));
        res.on('error', () => resolve({ status: res.statusCode ?? 0, body: {} }));
      });
      req.on('error', () => resolve({ status: 0, body: {} }));
      req.on('close', () => setTimeout(() => resolve({ status: 0, body: {} }), 50));
    });
    return { req, ended };
  }

  async function member(orgId: string, email: string, role: string): Promise<{ id: string; client: Client }> {
    const res = await t.admin('POST', '/admin/users', { orgId, email, role, password: PASSWORD });
    expect(res.status).toBe(201);
    const client = new Client(t, agent);
    expect((await client.signIn(email, PASSWORD)).status).toBe(200);
    return { id: res.body.id as string, client };
  }

  const count = (orgId: string) => t.service.store.reviews.count(orgId);
  /** Sends 500 lines at a time until a first batch has landed; answers how many lines were sent and how many reviews landed. */
  async function untilABatchLands(up: Upload, orgId: string, prefix: string): Promise<{ sent: number; landed: number }> {
    up.req.write(`${HEADER}\n`);
    let sent = 0;
    for (;;) {
      const landed = await count(orgId);
      if (landed > 0) return { sent, landed };
      up.req.write(lines(sent, sent + 500, prefix));
      sent += 500;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  const auditOf = async (orgId: string) => (await t.admin('GET', `/admin/orgs/${orgId}/audit`)).body.data as { action: string; actor: { email: string }; details: Record<string, string> }[];

  const deadline = { ...requestDeadline };
  beforeAll(async () => {
    // Node's whole-request deadline at 2 s (checked every 100 ms), so that an upload outlasting it is quick to show.
    Object.assign(requestDeadline, { ms: 2_000, checkEveryMs: 100 });
    t = await startTestService({ redis: false });
    ca = readFileSync(join(t.dataDir, 'tls-cert.pem'), 'utf8');
    agent = new Agent({ ca, keepAlive: true, servername: 'localhost' });
  });
  afterEach(() => {
    Object.assign(uploadPace, pace);
    Object.assign(uploadSlots, slots);
  });
  /** Waits until the organization's upload is no longer running (as GET /reviews/import tells it). */
  async function untilNotRunning(c: Client, state?: string): Promise<void> {
    for (;;) {
      const run = (await c.send('GET', '/dashboard/api/reviews/import')).body.run as { state: string } | null;
      if (run && run.state !== 'running' && (state === undefined || run.state === state)) return;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  afterAll(async () => {
    Object.assign(requestDeadline, deadline);
    agent?.destroy();
    await t?.close();
  });

  it('lets an upload run past Node’s whole-request deadline while it keeps its pace (a slow body elsewhere is still cut)', async () => {
    const { orgId } = await t.org('growth', 100_000);
    const admin = await member(orgId, 'admin@long.example', 'admin');
    const body = `${HEADER}\n${lines(0, 300, 'l')}`;
    const up = upload(admin.client, Buffer.byteLength(body));
    // Three parts over about 3 s: past the 2 s deadline, well within the pace's grace period.
    const third = Math.ceil(body.length / 3);
    for (let i = 0; i < 3; i++) {
      up.req.write(body.slice(i * third, (i + 1) * third));
      await new Promise((r) => setTimeout(r, 1_000));
    }
    up.req.end();
    const answer = await up.ended;
    expect([answer.status, answer.body.imported]).toEqual([200, 300]);
    // Any other request whose body is not in by the deadline is still cut (the connection ends, no answer).
    const slow = request({ host: '127.0.0.1', port: t.service.ports.https, path: '/dashboard/api/keys', method: 'POST', agent: false, ca, servername: 'localhost', headers: { cookie: admin.client.cookieHeader(), origin: t.service.config.publicUrl, 'x-csrf-token': admin.client.csrf, 'content-type': 'application/json', 'content-length': '100' } });
    const status = await new Promise<number>((resolve) => {
      slow.on('response', (res) => resolve(res.statusCode ?? 0));
      slow.on('error', () => resolve(0));
      slow.write('{');
    });
    slow.destroy();
    expect(status).toBe(0);
  });

  it('ends an Admin’s upload when an Owner removes them mid-upload: nothing of the rest is stored, and the import is audited as interrupted', async () => {
    const { orgId } = await t.org('growth', 100_000);
    const owner = await member(orgId, 'owner@remove.example', 'owner');
    const admin = await member(orgId, 'admin@remove.example', 'admin');
    const up = upload(admin.client, 64 * 1024 * 1024);
    const { sent } = await untilABatchLands(up, orgId, 'r');
    expect((await owner.client.send('DELETE', `/dashboard/api/members/${admin.id}`)).status).toBe(204);
    // Answered once the upload has ended: what is stored now is final.
    const landed = await count(orgId);
    // Ended at once: the connection is cut although the declared body has not all arrived.
    up.req.write(lines(sent, sent + 5000, 'r'));
    const answer = await up.ended;
    expect(answer.status).toBe(0);
    up.req.destroy();
    expect(await count(orgId)).toBe(landed);
    // The import's record (interrupted) comes before the removal's: nothing was written after it.
    const records = (await auditOf(orgId)).filter((r) => r.action === 'reviews.imported' || r.action === 'member.removed');
    expect(records.map((r) => r.action)).toEqual(['member.removed', 'reviews.imported']);
    expect(records[1]!.actor.email).toBe('admin@remove.example');
    expect(records[1]!.details).toMatchObject({ format: 'csv', imported: String(landed), interrupted: 'yes' });
  });

  it('stops an upload at its next batch when the uploader was demoted elsewhere (another process): 403, the rest not stored', async () => {
    const { orgId } = await t.org('growth', 100_000);
    const admin = await member(orgId, 'admin@demote.example', 'admin');
    const up = upload(admin.client, 64 * 1024 * 1024);
    const { sent } = await untilABatchLands(up, orgId, 'd');
    // Straight in the store: no in-process notice reaches the upload, only its own check before each batch.
    await t.service.store.people.users.setRole(admin.id, orgId, 'member');
    up.req.write(lines(sent, sent + 5000, 'd'));
    const answer = await up.ended;
    up.req.destroy();
    expect([answer.status, answer.body.error]).toEqual([403, 'forbidden_role']);
    // A batch checked before the demotion may still land; none of the lines sent after it does.
    expect(await count(orgId)).toBeLessThanOrEqual(sent);
  });

  it('stops an upload at its next batch when the uploader’s session ended elsewhere: 401', async () => {
    const { orgId } = await t.org('growth', 100_000);
    const admin = await member(orgId, 'admin@session.example', 'admin');
    const up = upload(admin.client, 64 * 1024 * 1024);
    const { sent } = await untilABatchLands(up, orgId, 's');
    await t.service.store.people.sessions.removeByUser(admin.id);
    up.req.write(lines(sent, sent + 5000, 's'));
    const answer = await up.ended;
    up.req.destroy();
    expect([answer.status, answer.body.error]).toEqual([401, 'unauthenticated']);
    expect(await count(orgId)).toBeLessThanOrEqual(sent);
  });

  it('cuts uploads slower than the minimum rate on bytes received (a trickle included) after the grace, so four slow tenants do not keep a fifth out', async () => {
    uploadPace.graceMs = 1000;
    const slow: Upload[] = [];
    const trickles: NodeJS.Timeout[] = [];
    for (let i = 0; i < 4; i++) {
      const { orgId } = await t.org('growth', 100_000);
      const { client } = await member(orgId, `slow${i}@pace.example`, 'owner');
      const up = upload(client, 512 * 1024 * 1024);
      up.req.write(`${HEADER}\n`);
      // One of them sends a byte every 100 ms: every byte used to reset the idle timer.
      if (i === 0) trickles.push(setInterval(() => up.req.write(' '), 100));
      slow.push(up);
    }
    try {
      const answers = await Promise.all(slow.map((u) => u.ended));
      expect(answers.map((a) => a.status)).toEqual([0, 0, 0, 0]);
    } finally {
      trickles.forEach(clearInterval);
    }
    const { orgId } = await t.org('growth', 100_000);
    const { client } = await member(orgId, 'fifth@pace.example', 'owner');
    const fifth = await client.upload('csv', `${HEADER}\n${lines(0, 1, 'f')}`);
    expect([fifth.status, fifth.body.imported]).toEqual([200, 1]);
  });

  it('frees the slot as soon as the import stops reading (a JSON file that is not an array), and closes a connection whose client keeps sending', async () => {
    // Every upload below declares more than this: all four count against the large pool.
    uploadSlots.smallBytes = 1024;
    const held: Upload[] = [];
    const trickles: NodeJS.Timeout[] = [];
    try {
      for (let i = 0; i < 4; i++) {
        const { orgId } = await t.org('growth', 100_000);
        const { client } = await member(orgId, `drain${i}@stop.example`, 'owner');
        const up = upload(client, 512 * 1024 * 1024, 'json');
        up.req.write('{"x":1}');
        // A byte now and then, forever: the rest of the body never arrives.
        trickles.push(setInterval(() => up.req.write(' '), 100));
        held.push(up);
        // The import has read what it needed and stopped.
        await untilNotRunning(client, 'finished');
      }
      const { orgId } = await t.org('growth', 100_000);
      const { client } = await member(orgId, 'fifth@stop.example', 'owner');
      const fifth = await client.upload('csv', `${HEADER}\n${lines(0, 30, 'f')}`);
      expect([fifth.status, fifth.body.imported]).toEqual([200, 30]);
      // Each of the four gets its summary, then its connection is closed although the client is still sending.
      const answers = await Promise.all(held.map((u) => u.ended));
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
      // The server ends the connection (the client does not: it would send forever).
      await Promise.all(held.map((u) => new Promise<void>((resolve) => (u.req.socket === null || u.req.socket.destroyed ? resolve() : u.req.socket.once('close', () => resolve())))));
    } finally {
      trickles.forEach(clearInterval);
      held.forEach((u) => u.req.destroy());
    }
  });

  it('never refuses a small file because of other tenants’ large uploads; a large one waits for a large slot', async () => {
    uploadSlots.smallBytes = 1024;
    const large: { up: Upload; client: Client }[] = [];
    try {
      for (let i = 0; i < 4; i++) {
        const { orgId } = await t.org('growth', 100_000);
        const { client } = await member(orgId, `large${i}@fair.example`, 'owner');
        const up = upload(client, 512 * 1024 * 1024);
        up.req.write(`${HEADER}\n`);
        large.push({ up, client });
        // Its slot is taken once its run shows.
        while (((await client.send('GET', '/dashboard/api/reviews/import')).body.run as { state: string } | null)?.state !== 'running') await new Promise((r) => setTimeout(r, 50));
      }
      const { orgId } = await t.org('growth', 100_000);
      const { client } = await member(orgId, 'small@fair.example', 'owner');
      const small = await client.upload('csv', `${HEADER}\n${lines(0, 1, 's')}`);
      expect([small.status, small.body.imported]).toEqual([200, 1]);
      const bigger = await client.upload('csv', `${HEADER}\n${lines(0, 30, 'b')}`);
      expect([bigger.status, bigger.body.error]).toEqual([429, 'import_in_progress']);
    } finally {
      for (const { up } of large) up.req.destroy();
      for (const { client } of large) await untilNotRunning(client);
    }
  });

  it('audits every import: the dashboard’s (who, format, bytes, counts) and the admin API’s (the operator)', async () => {
    const { orgId } = await t.org('growth', 100_000);
    const owner = await member(orgId, 'owner@audit.example', 'owner');
    const file = `${HEADER}\n${lines(0, 3, 'a')}not,a,line\n`;
    const res = await owner.client.upload('csv', file);
    expect(res.status).toBe(200);
    const ndjson = `${JSON.stringify({ platform: 'YELP', externalId: 'y1', authorName: 'Kim', rating: 3, content: 'Fine.', date: '2026-10-09T10:00:00Z' })}\n`;
    expect((await t.admin('POST', `/admin/orgs/${orgId}/reviews?format=ndjson`, ndjson)).status).toBe(200);
    const records = (await auditOf(orgId)).filter((r) => r.action === 'reviews.imported');
    expect(records.map((r) => [r.actor.email, r.details])).toEqual([
      ['operator', { format: 'ndjson', bytes: String(Buffer.byteLength(ndjson)), imported: '1', updated: '0', rejected: '0', interrupted: 'no' }],
      ['owner@audit.example', { format: 'csv', bytes: String(Buffer.byteLength(file)), imported: '3', updated: '0', rejected: '1', interrupted: 'no' }],
    ]);
    // Sign-ins are security events in the same log; operator changes too.
    expect((await auditOf(orgId)).some((r) => r.action === 'security.signed_in' && r.actor.email === 'owner@audit.example')).toBe(true);
    expect((await t.admin('PATCH', `/admin/orgs/${orgId}`, { plan: 'agency', language: 'de' })).status).toBe(200);
    const actions = (await auditOf(orgId)).map((r) => r.action);
    expect(actions.slice(0, 2).sort()).toEqual(['org.language_changed', 'org.plan_changed']);
    expect(actions).toContain('member.created');
  });

  it('says how much too large a file is without rounding it down to the limit', async () => {
    const { orgId } = await t.org('growth', 100_000);
    const { client } = await member(orgId, 'big@size.example', 'owner');
    const up = upload(client, 512 * 1024 * 1024 + 1);
    up.req.flushHeaders();
    const answer = await up.ended;
    up.req.destroy();
    expect(answer.status).toBe(413);
    expect(answer.body.message).toMatch(/^The file is 512\.01 MiB; the dashboard takes files up to 512 MiB/);
  });
});

