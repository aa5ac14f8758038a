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
    expect(Object.keys(generated).sort()).toEqual(['email', 'id', 'orgId', 'password', 'role']);
    expect(generated).toMatchObject({ email: 'Ada@Example.com', orgId, role: 'owner' });
    expect(String(generated.password)).toMatch(/^[A-Za-z0-9]{20}$/);
    const stored = await t.service.store.people.users.get(generated.id as string);
    expect(await verifyPassword(generated.password as string, stored!.passwordHash)).toBe(true);
    expect(stored!.passwordHash).not.toContain(generated.password as string);

    const given = await json(['users', 'create', '--org', orgId, '--email', 'bob@example.com', '--role', 'member', '--password-stdin'], 'a password from stdin\n');
    expect(Object.keys(given).sort()).toEqual(['email', 'id', 'orgId', 'role']);
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
      [['users', 'create', '--org', orgId, '--email', 'SOLO@example.com', '--role', 'member'], '', /already exists/],
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
});
