/**
 * The invitations CLI (CONTRACT §14) against a running service without
 * SMTP_URL: `invitations create --org … --json` with NDJSON on stdin (the
 * answer's exact shape, each rejected and skipped line by its number, a line
 * that is not JSON a rejection like any other), `invitations list [--state]`
 * and `invitations cancel`; `invitations purge` and `invitations erase`
 * (retention and erasure); `keys create --permissions` and `keys list`.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../test/harness.ts';

let t: TestService;

beforeAll(async () => {
  t = await startTestService({ redis: false });
}, 90_000);
afterAll(async () => t?.close());

function cli(args: string[], stdin = ''): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, '..', 'admin', 'cli.ts'), ...args], {
      env: { ...process.env, DATA_DIR: t.dataDir, ADMIN_PORT: String(t.service.ports.admin), ADMIN_TOKEN: '', REDIS_URL: '', MONGODB_URL: '' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

async function json(args: string[], stdin = ''): Promise<Record<string, unknown>> {
  const res = await cli([...args, '--json'], stdin);
  expect(res.stderr, `stderr of ${args.join(' ')}`).toBe('');
  expect(res.code).toBe(0);
  return JSON.parse(res.stdout.trim()) as Record<string, unknown>;
}

describe('invitations CLI', () => {
  it('creates from NDJSON on stdin, answering created, skipped and rejected lines by number', async () => {
    const { orgId } = await t.org('growth');
    await t.admin('POST', '/admin/products', { orgId, id: 'mug-1', name: 'Mug' });
    const lines = [
      JSON.stringify({ email: 'ana@example.com', name: 'Ana', orderRef: 'A-1', productId: 'mug-1' }),
      '{"email": "broken"',
      JSON.stringify({ email: 'ben@example.com', locale: 'fr' }),
      '',
      JSON.stringify({ email: 'ANA@example.com', orderRef: 'A-2' }),
      JSON.stringify({ email: 'nope', productId: 'mug-1' }),
      JSON.stringify({ email: 'cy@example.com', productId: 'ghost' }),
      JSON.stringify({ email: 'ana@example.com', orderRef: 'A-1' }),
      JSON.stringify({ email: 'dee@example.com', sendAt: '2026-12-01' }),
    ].join('\n');
    const out = await json(['invitations', 'create', '--org', orgId], `${lines}\n`);
    expect(out).toEqual({
      created: 2,
      existing: 1,
      skipped: [{ line: 5, reason: 'recently_invited' }],
      rejected: [
        { line: 2, reason: expect.stringMatching(/^invalid JSON/) },
        { line: 6, reason: 'email must be an email address (at most 254 characters)' },
        { line: 7, reason: 'productId is not a product of your catalog' },
        { line: 9, reason: 'sendAt must be an ISO 8601 date-time with a time zone, e.g. 2026-12-01T09:00:00Z' },
      ],
      skippedTotal: 1,
      rejectedTotal: 4,
    });

    const list = await json(['invitations', 'list', '--org', orgId]);
    const data = list.data as { email: string; state: string; reason: string | null; link: string | null; productId: string | null; locale: string | null }[];
    expect(Object.keys(list)).toEqual(['data']);
    expect(data.map((i) => [i.email, i.state, i.reason]).sort()).toEqual([
      ['ANA@example.com', 'skipped', 'recently_invited'],
      ['ana@example.com', 'unsent', null],
      ['ben@example.com', 'unsent', null],
    ]);
    expect(data.find((i) => i.email === 'ana@example.com')).toMatchObject({ productId: 'mug-1', link: expect.stringMatching(/\/r\/i\/inv_/) });
    expect(data.find((i) => i.state === 'skipped')!.link).toBeNull();
    const skipped = await json(['invitations', 'list', '--org', orgId, '--state', 'skipped']);
    expect((skipped.data as unknown[]).length).toBe(1);
    const bad = await cli(['invitations', 'list', '--org', orgId, '--state', 'opened', '--json']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('state must be one of');
  });

  it('cancels an invitation (again: the same answer); one with nothing left to cancel is refused', async () => {
    const { orgId } = await t.org('growth');
    await json(['invitations', 'create', '--org', orgId], `${JSON.stringify({ email: 'eve@example.com' })}\n${JSON.stringify({ email: 'eve@example.com' })}\n`);
    const data = (await json(['invitations', 'list', '--org', orgId])).data as { id: string; state: string; link: string }[];
    const open = data.find((i) => i.state === 'unsent')!;
    const skipped = data.find((i) => i.state === 'skipped')!;
    expect(await json(['invitations', 'cancel', open.id])).toEqual({ id: open.id, state: 'cancelled' });
    expect(await json(['invitations', 'cancel', open.id])).toEqual({ id: open.id, state: 'cancelled' });
    expect(((await json(['invitations', 'list', '--org', orgId, '--state', 'cancelled'])).data as { id: string }[]).map((i) => i.id)).toEqual([open.id]);
    const refused = await cli(['invitations', 'cancel', skipped.id, '--json']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('is skipped');
    const unknown = await cli(['invitations', 'cancel', 'inv_00000000000000000000', '--json']);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('No invitation');
  });

  it('purges the invitations that ended long ago (purge --org, --before), and erases every invitation of one address (erase --org --email)', async () => {
    const { orgId } = await t.org('growth');
    const store = t.service.store;
    const day = 86_400_000;
    const ago = (days: number) => new Date(Date.now() - days * day).toISOString();
    // Two links handed out 300 days ago (expired 270 days ago: ended) and one 100 days ago (ended 70 days ago), through the store.
    const old = (n: number, days: number) => ({
      id: `inv_${String(n).padStart(3, '0')}${orgId.slice(4, 21).padEnd(17, '0')}`, orgId, email: `old${n}@example.com`, emailKey: `old-key-${n}`, name: null, productId: null, orderRef: null, locale: null,
      state: 'unsent' as const, reason: null, lastError: null, createdAt: ago(days), sendAt: null, sentAt: null, remindedAt: null, reviewedAt: null, submissionId: null, updatedAt: ago(days),
    });
    await store.invitations.create(orgId, [old(1, 300), old(2, 300), old(3, 100)], { max: 100 });
    await json(['invitations', 'create', '--org', orgId], [{ email: 'ana@example.com', orderRef: 'A-1' }, { email: 'ana@example.com', orderRef: 'A-2' }, { email: 'ben@example.com' }].map((l) => JSON.stringify(l)).join('\n'));
    const listed = async () => ((await json(['invitations', 'list', '--org', orgId])).data as { id: string; email: string; state: string }[]).map((i) => i.email).sort();
    // ana's second order within 30 days is skipped (recently_invited): two invitations of hers.
    expect(await listed()).toEqual(['ana@example.com', 'ana@example.com', 'ben@example.com', 'old1@example.com', 'old2@example.com', 'old3@example.com']);

    // Too recent a cutoff is refused, with why.
    const early = await cli(['invitations', 'purge', '--org', orgId, '--before', ago(30), '--json']);
    expect(early.code).not.toBe(0);
    expect(early.stderr).toContain('before must be at least 90 days ago');
    // The configured retention (180 days): the two ended 270 days ago go.
    const purged = await json(['invitations', 'purge', '--org', orgId]);
    expect(purged).toMatchObject({ purged: 2, organizations: { [orgId]: 2 } });
    expect(Date.parse(String(purged.endedBefore))).toBeLessThan(Date.now() - 179 * day);
    expect(await listed()).toEqual(['ana@example.com', 'ana@example.com', 'ben@example.com', 'old3@example.com']);
    // --before 95 days ago: the link that ended 70 days ago ended after it and stays; nothing goes.
    expect(await json(['invitations', 'purge', '--org', orgId, '--before', ago(95)])).toMatchObject({ purged: 0 });
    const human = await cli(['invitations', 'purge', '--org', orgId]);
    expect(human.stdout).toContain('Purged 0 invitations that ended before');

    // Erasure: ana's invitations (one unsent, one skipped) at once; her unsubscribe stays and the output says so.
    expect(await t.admin('POST', `/admin/orgs/${orgId}/invitations/erase`, { email: 'nobody@example.com' })).toEqual({ status: 200, body: { erased: 0, unsubscribed: false } });
    await t.service.invitations.unsubscribe(orgId, 'ana@example.com');
    const erased = await json(['invitations', 'erase', '--org', orgId, '--email', 'Ana@Example.com']);
    expect(erased).toEqual({ erased: 2, unsubscribed: true });
    expect(await listed()).toEqual(['ben@example.com', 'old3@example.com']);
    const again = await cli(['invitations', 'erase', '--org', orgId, '--email', 'ben@example.com']);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('Erased 1 invitation of that address');
    expect(again.stdout).toContain('is not unsubscribed');
    const eraseAna = await cli(['invitations', 'erase', '--org', orgId, '--email', 'ana@example.com']);
    expect(eraseAna.stdout).toContain('Erased 0 invitations');
    expect(eraseAna.stdout).toContain('stays unsubscribed');
    // The same order again: a new invitation, skipped (the unsubscribe stands).
    const recreated = await json(['invitations', 'create', '--org', orgId], `${JSON.stringify({ email: 'ana@example.com', orderRef: 'A-1' })}\n`);
    expect(recreated).toMatchObject({ created: 0, existing: 0, skipped: [{ line: 1, reason: 'unsubscribed' }] });
    // Bad input is a 400 with the field, an unknown organization a 404; never a 500.
    expect(await t.admin('POST', `/admin/orgs/${orgId}/invitations/erase`, { email: '' })).toMatchObject({ status: 400, body: { error: 'invalid_parameter', details: [{ parameter: 'email' }] } });
    expect((await t.admin('POST', '/admin/orgs/org_nope/invitations/erase', { email: 'ana@example.com' })).status).toBe(404);
    expect(await t.admin('POST', '/admin/invitations/purge', { before: 'yesterday' })).toMatchObject({ status: 400, body: { details: [{ parameter: 'before' }] } });
    expect((await t.admin('POST', '/admin/invitations/purge', { orgId: 'org_nope' })).status).toBe(404);
    const missing = await cli(['invitations', 'erase', '--org', orgId, '--json']);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('--email is required');
    // Audited with the counts, never the address.
    const audit = JSON.stringify((await t.admin('GET', `/admin/orgs/${orgId}/audit`)).body);
    expect(audit).toContain('invitation.erased');
    expect(audit).not.toMatch(/ana@|ben@/i);
  });

  it('creates keys with --permissions and lists each key\'s permissions', async () => {
    const { orgId } = await t.org('growth');
    const key = await json(['keys', 'create', '--org', orgId, '--name', 'Shop', '--permissions', 'reviews:read,invitations:write']);
    expect(key.permissions).toEqual(['reviews:read', 'invitations:write']);
    const list = await json(['keys', 'list', '--org', orgId]);
    expect((list.data as { name: string; permissions: string[] }[]).map((k) => [k.name, k.permissions])).toEqual([
      ['test', ['reviews:read']],
      ['Shop', ['reviews:read', 'invitations:write']],
    ]);
    const human = await cli(['keys', 'list', '--org', orgId]);
    expect(human.stdout).toMatch(/permissions/);
    expect(human.stdout).toContain('reviews:read,invitations:write');
    const wrong = await cli(['keys', 'create', '--org', orgId, '--name', 'x', '--permissions', 'everything', '--json']);
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toContain('permissions must be a list of reviews:read, invitations:write');
  });
});
