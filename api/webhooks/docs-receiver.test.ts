/**
 * The receiver printed in docs/webhooks.md (and, the same, in the README) runs
 * as written: taken from the page, started with Node on HTTPS (a test
 * certificate, as TLS_KEY_FILE and TLS_CERT_FILE), and fed deliveries signed
 * by our signer over HTTPS, its certificate checked. It must
 * accept a valid delivery (also one signed during a rotation), handle a
 * duplicate webhook-id once, and refuse a bad signature and an old timestamp.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../test/global-setup.ts';
import { eventBody, newMessageId, reviewEvent } from './events.ts';
import { reviewFixture } from './fixtures.ts';
import { generateSecret } from './secrets.ts';
import { signedHeaders } from './signature.ts';
import { testCert } from './test-receiver.ts';

const repo = new URL('../../', import.meta.url);
function snippet(file = 'docs/webhooks.md'): string {
  const page = readFileSync(new URL(file, repo), 'utf8');
  const match = /<!-- receiver: run by api\/webhooks\/docs-receiver\.test\.ts -->\n```js\n([\s\S]*?)```/.exec(page);
  if (match === null) throw new Error(`${file} has no receiver snippet under its marker`);
  return match[1]!;
}

async function until(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (await condition()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`gave up waiting for ${what}`);
}

const listening = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.end();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });

let child: ChildProcess | undefined;
const dir = mkdtempSync(join(tmpdir(), 'docs-receiver-'));
afterAll(() => {
  child?.kill();
  rmSync(dir, { recursive: true, force: true });
});

/** POST over HTTPS, the receiver's certificate checked against `ca`. */
function post(port: number, ca: string, headers: Record<string, string>, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/', method: 'POST', headers, ca, servername: 'localhost' }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('the receiver in docs/webhooks.md', () => {
  it('is short, and the README shows the same one', () => {
    expect(snippet().trim().split('\n').length).toBeLessThanOrEqual(18);
    expect(snippet('README.md')).toBe(snippet());
  });

  it('verifies, deduplicates by webhook-id and refuses what is not ours', async () => {
    const secret = generateSecret();
    const port = await freePort();
    const cert = await testCert();
    writeFileSync(join(dir, 'key.pem'), cert.key, { mode: 0o600 });
    writeFileSync(join(dir, 'cert.pem'), cert.cert);
    // The page's code as a module, resolved from the repository (where standardwebhooks is installed).
    const env = { ...process.env, WEBHOOK_SECRET: secret, PORT: String(port), TLS_KEY_FILE: join(dir, 'key.pem'), TLS_CERT_FILE: join(dir, 'cert.pem') };
    child = spawn(process.execPath, ['--input-type=module'], { cwd: repo, env, stdio: ['pipe', 'pipe', 'inherit'] });
    child.stdin!.end(snippet());
    let out = '';
    child.stdout!.on('data', (c: Buffer) => (out += c.toString('utf8')));
    await until(() => listening(port), 'the snippet to listen');

    const send = (id: string, body: string, secrets: string[], at = new Date()): Promise<number> =>
      post(port, cert.cert, { ...signedHeaders(id, body, secrets, at), 'content-type': 'application/json' }, body);
    // A body far bigger than one chunk, with multibyte characters across chunk boundaries.
    const big = eventBody(reviewEvent('review.created', reviewFixture({ id: 'rev_big', content: 'é✓'.repeat(60_000) }), new Date()));
    const first = newMessageId();
    expect(await send(first, big, [secret])).toBe(204);
    await until(() => out.includes(first), 'the first event to be handled');

    expect(await send(first, big, [secret])).toBe(204); // a duplicate: accepted, not handled again
    const rotated = newMessageId();
    const updated = eventBody(reviewEvent('review.updated', reviewFixture(), new Date()));
    expect(await send(rotated, updated, [generateSecret(), secret])).toBe(204); // during a rotation: two signatures
    expect(await send(newMessageId(), updated, [generateSecret()])).toBe(400); // someone else's secret
    expect(await send(newMessageId(), updated, [secret], new Date(Date.now() - 10 * 60_000))).toBe(400); // too old
    await until(() => out.includes(rotated), 'the second event to be handled');

    expect(out.trim().split('\n')).toEqual([`${first} review.created rev_big`, `${rotated} review.updated rev_1`]);
  });
});
