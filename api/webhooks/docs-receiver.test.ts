/**
 * The receiver printed in docs/webhooks.md (and, the same, in the README) runs
 * as written: taken from the page, started with Node, and fed deliveries signed by our signer. It must
 * accept a valid delivery (also one signed during a rotation), handle a
 * duplicate webhook-id once, and refuse a bad signature and an old timestamp.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../test/global-setup.ts';
import { eventBody, newMessageId, reviewEvent } from './events.ts';
import { reviewFixture } from './fixtures.ts';
import { generateSecret } from './secrets.ts';
import { signedHeaders } from './signature.ts';

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
afterAll(() => {
  child?.kill();
});

describe('the receiver in docs/webhooks.md', () => {
  it('is short, and the README shows the same one', () => {
    expect(snippet().trim().split('\n').length).toBeLessThanOrEqual(16);
    expect(snippet('README.md')).toBe(snippet());
  });

  it('verifies, deduplicates by webhook-id and refuses what is not ours', async () => {
    const secret = generateSecret();
    const port = await freePort();
    // The page's code as a module, resolved from the repository (where standardwebhooks is installed).
    child = spawn(process.execPath, ['--input-type=module'], { cwd: repo, env: { ...process.env, WEBHOOK_SECRET: secret, PORT: String(port) }, stdio: ['pipe', 'pipe', 'inherit'] });
    child.stdin!.end(snippet());
    let out = '';
    child.stdout!.on('data', (c: Buffer) => (out += c.toString('utf8')));
    await until(() => listening(port), 'the snippet to listen');

    const send = async (id: string, body: string, secrets: string[], at = new Date()): Promise<number> => {
      const res = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', headers: { ...signedHeaders(id, body, secrets, at), 'content-type': 'application/json' }, body });
      return res.status;
    };
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
