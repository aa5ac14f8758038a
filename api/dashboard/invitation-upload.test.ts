/**
 * `Invite customers` on the Collect page over real HTTPS (CONTRACT §14): the
 * CSV is the body of POST /dashboard/api/invitations/import, streamed through
 * the dashboard's shared upload (Owner and Admin; a Member 403; session, Origin
 * and CSRF as every upload), answered with the summary by line number;
 * GET …/invitations/import tells the running or last upload (a page reloaded
 * mid-upload); one upload per organization whatever it imports; a hostile
 * body (binary, a huge line) is rejections, never a 500; audited in the
 * person's name. Every answer is checked against the dashboard's OpenAPI
 * document (test-client).
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { ClientRequest } from 'node:http';
import { Agent, request } from 'node:https';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestService, type TestService } from '../test/harness.ts';
import { Client } from './test-client.ts';

const PASSWORD = 'a long enough password';
const IMPORT = '/dashboard/api/invitations/import';

describe('dashboard invitation upload (CSV)', () => {
  let t: TestService;
  let agent: Agent;
  let ca: string;

  async function person(orgId: string, email: string, role: string): Promise<Client> {
    expect((await t.admin('POST', '/admin/users', { orgId, email, role, password: PASSWORD })).status).toBe(201);
    const client = new Client(t, agent);
    expect((await client.signIn(email, PASSWORD)).status).toBe(200);
    return client;
  }
  const invited = async (orgId: string) => (await t.service.invitations.list(orgId, { limit: 1000, offset: 0 })).data;

  beforeAll(async () => {
    t = await startTestService({ redis: false });
    ca = readFileSync(join(t.dataDir, 'tls-cert.pem'), 'utf8');
    agent = new Agent({ ca, keepAlive: true, servername: 'localhost' });
  });
  afterAll(async () => {
    agent?.destroy();
    await t?.close();
  });

  it('an Owner uploads a CSV: good lines invited, bad ones by number; the last upload is known afterwards; audited', async () => {
    const { orgId } = await t.org('growth', 100_000);
    const owner = await person(orgId, 'owner@shop.test', 'owner');
    expect((await owner.send('POST', '/dashboard/api/products', { id: 'MUG-1', name: 'Blue mug' })).status).toBe(201);
    const csv = ['email,name,productId,orderRef,locale,sendAt', 'ana@customer.test,"Silva, Ana",MUG-1,ORD-1,pt,', 'bo@customer.test,Bo,NOPE,ORD-2,,', 'not-an-address,Cy,,ORD-3,,', 'dee@customer.test,Dee,,ORD-4,en,', ''].join('\r\n');
    expect((await owner.send('GET', IMPORT)).body).toEqual({ run: null, maxImportBytes: 512 * 1024 * 1024 });
    const res = await owner.send('POST', `${IMPORT}?format=csv`, Buffer.from(csv));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      created: 2,
      existing: 0,
      skipped: [],
      rejected: [
        { line: 3, reason: 'productId is not a product of your catalog' },
        { line: 4, reason: 'email must be an email address (at most 254 characters)' },
      ],
      skippedTotal: 0,
      rejectedTotal: 2,
      fileError: null,
    });
    const stored = await invited(orgId);
    expect(stored.map((i) => [i.orderRef, i.email, i.productId, i.state]).sort()).toEqual([
      ['ORD-1', 'ana@customer.test', 'MUG-1', 'unsent'],
      ['ORD-4', 'dee@customer.test', null, 'unsent'],
    ]);
    const status = await owner.send('GET', IMPORT);
    expect(status.body.run).toMatchObject({ state: 'finished', imported: 2, updated: 0, skippedTotal: 0, rejectedTotal: 2 });
    // Another kind's record is its own.
    expect((await owner.send('GET', '/dashboard/api/products/import')).body.run).toBeNull();

    // Again: nobody is invited twice (the same orderRef and email is the invitation that stands).
    const again = await owner.send('POST', `${IMPORT}?format=csv`, Buffer.from(csv));
    expect(again.body).toMatchObject({ created: 0, existing: 2, rejectedTotal: 2 });
    expect(await invited(orgId)).toHaveLength(2);

    const audit = (await owner.send('GET', '/dashboard/api/audit')).body.data as { action: string; actor: { email: string }; target: { label: string }; details: Record<string, string> }[];
    const imports = audit.filter((r) => r.action === 'invitation.imported');
    expect(imports).toHaveLength(2);
    expect(imports[1]).toMatchObject({ actor: { email: 'owner@shop.test' }, target: { label: 'CSV file' }, details: { format: 'csv', created: '2', existing: '0', skipped: '0', rejected: '2', interrupted: 'no' } });
    // A customer's address is never in the audit log.
    expect(JSON.stringify(imports)).not.toContain('customer.test');
  });

  it('an Admin may upload; a Member may neither upload nor read the upload’s state (403); no CSRF token, no upload', async () => {
    const { orgId } = await t.org('growth', 100_000);
    const admin = await person(orgId, 'admin@shop.test', 'admin');
    const member = await person(orgId, 'member@shop.test', 'member');
    const csv = Buffer.from('email\nana@customer.test\n');
    const refused = await member.send('POST', `${IMPORT}?format=csv`, csv);
    expect([refused.status, refused.body.error]).toEqual([403, 'forbidden_role']);
    expect((await member.send('GET', IMPORT)).status).toBe(403);
    const csrf = admin.csrf;
    admin.csrf = 'wrong';
    expect((await admin.send('POST', `${IMPORT}?format=csv`, csv)).status).toBe(403);
    admin.csrf = csrf;
    expect(await invited(orgId)).toHaveLength(0);
    const signedOut = new Client(t, agent);
    await signedOut.start();
    expect((await signedOut.send('POST', `${IMPORT}?format=csv`, csv)).status).toBe(401);
    // The format is said, and only CSV is taken here (NDJSON is the CLI's).
    const ndjson = await admin.send('POST', `${IMPORT}?format=ndjson`, Buffer.from('{"email":"ana@customer.test"}\n'));
    expect([ndjson.status, ndjson.body.error]).toEqual([400, 'bad_request']);
    expect(ndjson.body.message).toBe('Say which format the file is in: format=csv.');
    expect((await admin.send('POST', IMPORT, csv)).status).toBe(400);
    const ok = await admin.send('POST', `${IMPORT}?format=csv`, csv);
    expect([ok.status, ok.body.created]).toEqual([200, 1]);
  });

  it('a header without email, or with an unknown column, is a 200 summary saying so; nothing is created', async () => {
    const { orgId } = await t.org('growth', 100_000);
    const owner = await person(orgId, 'owner@header.test', 'owner');
    const res = await owner.send('POST', `${IMPORT}?format=csv`, Buffer.from('e-mail,name\nana@customer.test,Ana\n'));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ created: 0, rejectedTotal: 1, fileError: { line: 1, reason: 'the header row is missing the required column "email" (found: "e-mail", "name"), so no line was read' } });
    expect(await invited(orgId)).toHaveLength(0);
  });

  it('a hostile body is rejections by line, never a 500: binary bytes, a line of 2 MB', async () => {
    const { orgId } = await t.org('growth', 100_000);
    const owner = await person(orgId, 'owner@hostile.test', 'owner');
    const binary = await owner.send('POST', `${IMPORT}?format=csv`, randomBytes(256 * 1024));
    expect(binary.status).toBe(200);
    expect(binary.body.created).toBe(0);
    expect(binary.body.fileError).not.toBeNull();
    // After a good header: binary lines are rejected by number, the good line after them created.
    const noise = randomBytes(64 * 1024).toString('latin1').replace(/"/g, 'q');
    const mixed = Buffer.concat([Buffer.from('email,name\n'), Buffer.from(noise, 'latin1'), Buffer.from('\nlast@customer.test,Last\n')]);
    const res = await owner.send('POST', `${IMPORT}?format=csv`, mixed);
    expect(res.status).toBe(200);
    expect(res.body.created).toBe(1);
    expect(res.body.rejectedTotal).toBeGreaterThan(0);
    for (const r of res.body.rejected as { line: number; reason: string }[]) expect(r.line).toBeGreaterThan(1);
    const huge = Buffer.from(`email,name\nana@customer.test,Ana\nbo@customer.test,${'x'.repeat(2 * 1024 * 1024)}\ncy@customer.test,Cy\n`);
    const big = await owner.send('POST', `${IMPORT}?format=csv`, huge);
    expect(big.status).toBe(200);
    expect(big.body).toMatchObject({ created: 2, rejectedTotal: 1 });
    expect((big.body.rejected as { line: number; reason: string }[])[0]).toMatchObject({ line: 3 });
    expect((await invited(orgId)).map((i) => i.email).sort()).toEqual(['ana@customer.test', 'cy@customer.test', 'last@customer.test']);
  });

  it('tells the running upload’s progress, and shares the one slot per organization with the other uploads (429)', async () => {
    const { orgId } = await t.org('growth', 100_000);
    const owner = await person(orgId, 'owner@progress.test', 'owner');
    const lines = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `p${from + i}@customer.test,R${from + i}\n`).join('');
    const body = `email,orderRef\n${lines(0, 1200)}`;
    // The whole length is declared; 700 lines are sent, then the upload waits for the rest.
    const req: ClientRequest = request({
      host: '127.0.0.1',
      port: t.service.ports.https,
      path: `${IMPORT}?format=csv`,
      method: 'POST',
      agent: false,
      ca,
      servername: 'localhost',
      headers: { cookie: owner.cookieHeader(), origin: t.service.config.publicUrl, 'x-csrf-token': owner.csrf, 'content-type': 'text/csv', 'content-length': String(Buffer.byteLength(body)) },
    });
    const answer = new Promise<{ status: number; body: Record<string, unknown> }>((resolve, reject) => {
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown> }));
      });
      req.on('error', reject);
    });
    const head = `email,orderRef\n${lines(0, 700)}`;
    req.write(head);
    await vi.waitFor(
      async () => {
        const run = (await owner.send('GET', IMPORT)).body.run as Record<string, unknown> | null;
        expect(run).toMatchObject({ state: 'running', imported: 500, updated: 0, skippedTotal: 0, rejectedTotal: 0 });
      },
      { timeout: 15_000, interval: 50 },
    );
    // One upload per organization, whatever it imports.
    const products = await owner.send('POST', '/dashboard/api/products/import?format=csv', Buffer.from('id,name\nX,X\n'));
    expect([products.status, products.body.error]).toEqual([429, 'import_in_progress']);
    req.end(body.slice(head.length));
    const done = await answer;
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ created: 1200, rejectedTotal: 0 });
    expect((await owner.send('GET', IMPORT)).body.run).toMatchObject({ state: 'finished', imported: 1200 });
  });
});
