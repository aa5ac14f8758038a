/**
 * A disk that refuses writes (issue 25 item 9), with an injected file handle
 * whose writes fail with ENOSPC: a write is 503 service_unavailable with
 * Retry-After (never a 500), /readyz says the store is not ready, and once the
 * disk takes writes again the store is ready and writes succeed, nothing
 * refused having come back.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { open as openFile, type FileHandle } from 'node:fs/promises';
import { Agent } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../../dashboard/test-client.ts';
import { startTestService, type TestService } from '../../test/harness.ts';
import type { OpenFile } from './durable-log.ts';
import { EmbeddedStore } from './store.ts';

describe('embedded store on a full disk', () => {
  const disk = { full: false };
  const open: OpenFile = async (path, flags, mode) => {
    const handle = await openFile(path, flags, mode);
    return new Proxy(handle, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver) as unknown;
        if (prop === 'write' && typeof value === 'function') {
          return async (...args: unknown[]) => {
            if (disk.full) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
            return (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
          };
        }
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    }) as FileHandle;
  };
  let dir: string;
  let t: TestService;
  let orgId: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'disk-full-'));
    t = await startTestService({ redis: false, store: await EmbeddedStore.open(join(dir, 'data'), { open }) });
    orgId = (await t.org('growth')).orgId;
  });
  afterAll(async () => {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers 503 with Retry-After while the disk is full, is not ready until a write succeeds again, then takes writes', async () => {
    expect((await t.get('/readyz', { key: null })).status).toBe(200);
    disk.full = true;
    const refused = await t.admin('POST', '/admin/keys', { orgId, name: 'During the outage' });
    expect([refused.status, refused.body.error]).toEqual([503, 'service_unavailable']);
    const ready = await t.get('/readyz', { key: null });
    expect(ready.status).toBe(503);
    expect(JSON.stringify(ready.body)).toContain('store');

    disk.full = false;
    expect((await t.get('/readyz', { key: null })).status).toBe(200);
    const taken = await t.admin('POST', '/admin/keys', { orgId, name: 'After it' });
    expect(taken.status).toBe(201);
    const names = ((await t.admin('GET', `/admin/keys?orgId=${orgId}`)).body.data as { name: string }[]).map((k) => k.name);
    expect(names).toContain('After it');
    expect(names).not.toContain('During the outage');
  });

  it('answers sign-in 503 before the password is checked while the disk is full: a right password is not told from a wrong one', async () => {
    const email = 'owner@full.example';
    const password = 'a long enough password';
    expect((await t.admin('POST', '/admin/users', { orgId, email, role: 'owner', password })).status).toBe(201);
    const agent = new Agent({ ca: readFileSync(join(t.dataDir, 'tls-cert.pem'), 'utf8'), keepAlive: true, servername: 'localhost' });
    try {
      const client = new Client(t, agent);
      await client.start();
      disk.full = true;
      // A write refused: the store knows the disk is full.
      expect((await t.admin('POST', '/admin/keys', { orgId, name: 'Refused' })).status).toBe(503);
      const right = await client.signIn(email, password);
      const wrong = await client.signIn(email, 'not the password at all');
      expect([right.status, right.body.error, wrong.status, wrong.body.error]).toEqual([503, 'service_unavailable', 503, 'service_unavailable']);
      disk.full = false;
      expect((await client.signIn(email, password)).status).toBe(200);
    } finally {
      disk.full = false;
      agent.destroy();
    }
  });
});

describe('embedded store whose log cannot be cut back after a failed write', () => {
  const disk = { failing: false };
  const open: OpenFile = async (path, flags, mode) => {
    const handle = await openFile(path, flags, mode);
    return new Proxy(handle, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver) as unknown;
        if ((prop === 'write' || prop === 'truncate') && typeof value === 'function') {
          return async (...args: unknown[]) => {
            if (disk.failing) throw Object.assign(new Error(`EIO: i/o error, ${String(prop)}`), { code: 'EIO' });
            return (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
          };
        }
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    }) as FileHandle;
  };
  let dir: string;
  let t: TestService;
  let orgId: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'disk-broken-'));
    t = await startTestService({ redis: false, store: await EmbeddedStore.open(join(dir, 'data'), { open }) });
    orgId = (await t.org('growth')).orgId;
  });
  afterAll(async () => {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses every write with 503 service_unavailable (never a 500) and is not ready, even once the disk is back, until a restart', async () => {
    expect((await t.get('/readyz', { key: null })).status).toBe(200);
    disk.failing = true;
    const first = await t.admin('POST', '/admin/keys', { orgId, name: 'The failed write' });
    expect([first.status, first.body.error]).toEqual([503, 'service_unavailable']);
    disk.failing = false;
    const later = await t.admin('POST', '/admin/keys', { orgId, name: 'After it' });
    expect([later.status, later.body.error]).toEqual([503, 'service_unavailable']);
    const ready = await t.get('/readyz', { key: null });
    expect(ready.status).toBe(503);
    expect(JSON.stringify(ready.body)).toContain('store');
  });
});
