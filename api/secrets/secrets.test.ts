import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureSecretsKey, parseSecretsKey, SecretBox, SecretOpenError, secretsKeyPath } from './secrets.ts';
import { ConfigError, loadConfig } from '../config.ts';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('secrets', () => {
  it('seals with AES-256-GCM: round trip, a fresh IV each time, bound to its aad, tamper-evident', () => {
    const box = new SecretBox(Buffer.alloc(32, 7));
    const a = box.sealJson({ apiKey: 'tp-raw-secret' }, 'src_1');
    const b = box.sealJson({ apiKey: 'tp-raw-secret' }, 'src_1');
    expect(a).not.toBe(b);
    expect(a).not.toContain('tp-raw-secret');
    expect(box.openJson(a, 'src_1')).toEqual({ apiKey: 'tp-raw-secret' });
    expect(() => box.open(a, 'src_2')).toThrow(SecretOpenError);
    const parts = a.split('.');
    const flipped = Buffer.from(parts[3]!, 'base64url');
    flipped[0]! ^= 1;
    expect(() => box.open([...parts.slice(0, 3), flipped.toString('base64url')].join('.'), 'src_1')).toThrow(SecretOpenError);
    expect(() => new SecretBox(Buffer.alloc(32, 8)).open(a, 'src_1')).toThrow(SecretOpenError);
    expect(JSON.stringify({ box })).not.toContain('BwcH');
    expect(inspect(box)).toBe('[SecretBox]');
  });

  it('generates DATA_DIR/secrets-key once, mode 0600, and reuses it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'secrets-'));
    dirs.push(dir);
    const first = await ensureSecretsKey(null, dir);
    expect(first.length).toBe(32);
    expect(statSync(secretsKeyPath(dir)).mode & 0o777).toBe(0o600);
    const again = await ensureSecretsKey(null, dir);
    expect(again.equals(first)).toBe(true);
    expect(parseSecretsKey(readFileSync(secretsKeyPath(dir), 'utf8'))!.equals(first)).toBe(true);
    const configured = Buffer.alloc(32, 1);
    expect((await ensureSecretsKey(configured, dir)).equals(configured)).toBe(true);
  });

  it('SECRETS_KEY is validated by the configuration: 32 bytes of base64', () => {
    const good = Buffer.alloc(32, 3).toString('base64');
    expect(loadConfig({ SECRETS_KEY: good }).secretsKey!.equals(Buffer.alloc(32, 3))).toBe(true);
    expect(loadConfig({}).secretsKey).toBeNull();
    expect(() => loadConfig({ SECRETS_KEY: Buffer.alloc(16).toString('base64') })).toThrow(ConfigError);
    expect(() => loadConfig({ SECRETS_KEY: 'not base64 at all!' })).toThrow(/SECRETS_KEY/);
    // The message never repeats the value.
    try {
      loadConfig({ SECRETS_KEY: 'hunter2-hunter2' });
    } catch (err) {
      expect((err as Error).message).not.toContain('hunter2');
    }
  });
});
