/** `npm run admin -- users create|list|remove` against a running service: the exact --json shapes of CONTRACT §6. */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../test/harness.ts';
import { verifyPassword } from '../dashboard/password.ts';

let t: TestService;
beforeAll(async () => {
  t = await startTestService({ redis: false });
});
afterAll(async () => t.close());

function cli(args: string[], stdin = ''): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'cli.ts'), ...args], {
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
  const lines = res.stdout.trim().split('\n');
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0]!) as Record<string, unknown>;
}

describe('admin CLI: users', () => {
  it('creates (generated or given password), lists and removes people with the exact --json shapes', async () => {
    const { orgId } = await t.org('growth');
    const generated = await json(['users', 'create', '--org', orgId, '--email', 'Ada@Example.com', '--role', 'owner']);
    expect(Object.keys(generated).sort()).toEqual(['email', 'id', 'memberships', 'orgId', 'password', 'role']);
    expect(generated).toMatchObject({ email: 'Ada@Example.com', orgId, role: 'owner', memberships: [{ orgId, role: 'owner' }] });
    expect(String(generated.password)).toMatch(/^[A-Za-z0-9]{20}$/);
    const stored = await t.service.store.people.users.get(generated.id as string);
    expect(await verifyPassword(generated.password as string, stored!.passwordHash)).toBe(true);
    expect(stored!.passwordHash).not.toContain(generated.password as string);

    const given = await json(['users', 'create', '--org', orgId, '--email', 'bob@example.com', '--role', 'member', '--password-stdin'], 'a password from stdin\n');
    expect(Object.keys(given).sort()).toEqual(['email', 'id', 'memberships', 'orgId', 'role']);
    const bob = await t.service.store.people.users.get(given.id as string);
    expect(await verifyPassword('a password from stdin', bob!.passwordHash)).toBe(true);

    const list = await json(['users', 'list', '--org', orgId]);
    const items = list.data as Record<string, unknown>[];
    expect(items.map((u) => Object.keys(u).sort())).toEqual([
      ['createdAt', 'email', 'id', 'lastSignInAt', 'role'],
      ['createdAt', 'email', 'id', 'lastSignInAt', 'role'],
    ]);
    expect(items.map((u) => [u.email, u.role, u.lastSignInAt])).toEqual([
      ['Ada@Example.com', 'owner', null],
      ['bob@example.com', 'member', null],
    ]);

    expect(await json(['users', 'remove', given.id as string])).toEqual({ id: given.id, removed: true });
    expect(((await json(['users', 'list', '--org', orgId])).data as unknown[]).length).toBe(1);
  });

  it('refuses a taken email (whatever its case), a short password, an unknown role and the last Owner, with one line on stderr', async () => {
    const { orgId } = await t.org('growth');
    const owner = await json(['users', 'create', '--org', orgId, '--email', 'solo@example.com', '--role', 'owner']);
    for (const [args, stdin, message] of [
      [['users', 'create', '--org', orgId, '--email', 'SOLO@example.com', '--role', 'member'], '', /already a member of the organization/],
      [['users', 'create', '--org', orgId, '--email', 'x@example.com', '--role', 'member', '--password-stdin'], 'short\n', /password must be at least 12 characters/],
      [['users', 'create', '--org', orgId, '--email', 'x@example.com', '--role', 'boss'], '', /role must be one of owner, admin, member/],
      [['users', 'remove', owner.id as string], '', /at least one Owner/],
    ] as const) {
      const res = await cli([...args, '--json'], stdin);
      expect(res.code).toBe(1);
      expect(res.stdout).toBe('');
      expect(res.stderr).toMatch(message);
      expect(res.stderr.trim().split('\n')).toHaveLength(1);
    }
  });

  it('gives an existing email a membership in another organization under its id, and removes one membership with --org', async () => {
    const { orgId: first } = await t.org('growth');
    const { orgId: second } = await t.org('growth');
    const created = await json(['users', 'create', '--org', first, '--email', 'agency@example.com', '--role', 'owner']);
    const before = (await t.service.store.people.users.get(created.id as string))!.passwordHash;
    // Not by default: the account's password was set by whoever accepted its first invitation.
    const unasked = await cli(['users', 'create', '--org', second, '--email', 'AGENCY@example.com', '--role', 'admin', '--json']);
    expect([unasked.code, unasked.stdout]).toEqual([1, '']);
    expect(unasked.stderr).toMatch(/has an account already, a member of 1 organization.*--existing-account/);
    expect(await t.service.store.people.users.member(created.id as string, second)).toBeNull();
    const added = await json(['users', 'create', '--org', second, '--email', 'AGENCY@example.com', '--role', 'admin', '--existing-account']);
    // The same shape, the existing id, both memberships; no password (the account keeps its own).
    expect(added).toEqual({ id: created.id, email: 'agency@example.com', orgId: second, role: 'admin', memberships: [{ orgId: first, role: 'owner' }, { orgId: second, role: 'admin' }] });
    expect((await t.service.store.people.users.get(created.id as string))!.passwordHash).toBe(before);
    // A password given for an existing account is refused, not set.
    const { orgId: third } = await t.org('growth');
    const refused = await cli(['users', 'create', '--org', third, '--email', 'agency@example.com', '--role', 'member', '--existing-account', '--password-stdin', '--json'], 'somebody elses password\n');
    expect([refused.code, refused.stdout]).toEqual([1, '']);
    expect(refused.stderr).toMatch(/keeps its own password/);
    expect((await t.service.store.people.users.get(created.id as string))!.memberships).toHaveLength(2);
    // Rows of users list are unchanged, in each organization.
    for (const [org, role] of [[first, 'owner'], [second, 'admin']] as const) {
      const rows = (await json(['users', 'list', '--org', org])).data as Record<string, unknown>[];
      expect(rows.map((u) => [Object.keys(u).sort(), u.id, u.role])).toEqual([[['createdAt', 'email', 'id', 'lastSignInAt', 'role'], created.id, role]]);
    }

    // Without --org, a user of two organizations is not removed: which membership?
    const ambiguous = await cli(['users', 'remove', created.id as string, '--json']);
    expect([ambiguous.code, ambiguous.stdout]).toEqual([1, '']);
    expect(ambiguous.stderr).toMatch(/belongs to 2 organizations/);
    expect(await json(['users', 'remove', created.id as string, '--org', second])).toEqual({ id: created.id, orgId: second, removed: true });
    expect((await json(['users', 'list', '--org', second])).data).toEqual([]);
    expect((await t.service.store.people.users.get(created.id as string))?.memberships).toEqual([expect.objectContaining({ orgId: first, role: 'owner' })]);
    // Not a member there (any more): 404.
    const gone = await cli(['users', 'remove', created.id as string, '--org', second, '--json']);
    expect([gone.code, gone.stdout]).toEqual([1, '']);
    expect(gone.stderr).toMatch(/not found/i);
  });
});
