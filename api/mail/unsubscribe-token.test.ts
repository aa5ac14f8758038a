/** The unsubscribe token: bound to one organization and one address, unreadable, the same each time, and nothing else opens. */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { UnsubscribeTokens } from './unsubscribe-token.ts';

const key = randomBytes(32);
const tokens = new UnsubscribeTokens(key);

describe('unsubscribe tokens', () => {
  it('open to the organization and the (lower-cased) address they were made for', () => {
    const token = tokens.make('org_AAAAAAAAAAAAAAAAAAAA', ' Ana.Lopez@Mail.Example ');
    expect(tokens.open(token)).toEqual({ organizationId: 'org_AAAAAAAAAAAAAAAAAAAA', email: 'ana.lopez@mail.example' });
    // URL-safe as it is: it goes into a path.
    expect(token).toMatch(/^[A-Za-z0-9_.-]+$/);
  });

  it('do not show the address, and are the same every time (the link can be shown again)', () => {
    const token = tokens.make('org_1', 'ana@mail.example');
    expect(token).not.toContain('ana');
    expect(Buffer.from(token.split('.')[2]!, 'base64url').toString('utf8')).not.toContain('ana');
    expect(tokens.make('org_1', 'ANA@mail.example')).toBe(token);
    expect(tokens.make('org_1', 'bo@mail.example')).not.toBe(token);
  });

  it('another organization, a changed address, another key or a damaged token open to nothing', () => {
    const token = tokens.make('org_1', 'ana@mail.example');
    const [org, mac, sealed] = token.split('.') as [string, string, string];
    expect(tokens.open(`org_2.${mac}.${sealed}`)).toBeNull();
    const other = tokens.make('org_1', 'anb@mail.example').split('.')[2]!;
    expect(tokens.open(`${org}.${mac}.${other}`)).toBeNull();
    const flipped = Buffer.from(sealed, 'base64url');
    flipped[0]! ^= 1;
    expect(tokens.open(`${org}.${mac}.${flipped.toString('base64url')}`)).toBeNull();
    expect(new UnsubscribeTokens(randomBytes(32)).open(token)).toBeNull();
    for (const junk of ['', 'x', 'a.b', 'a.b.c.d', `${org}.${mac}`, `${org}.${mac.slice(1)}.${sealed}`, `o r g.${mac}.${sealed}`, 'x'.repeat(700), 42, null, undefined]) {
      expect(tokens.open(junk)).toBeNull();
    }
  });

  it('refuse to make a token for an organization id that is not URL-safe or an empty address', () => {
    expect(() => tokens.make('org/1', 'ana@mail.example')).toThrow(TypeError);
    expect(() => tokens.make('org_1', '  ')).toThrow(TypeError);
  });
});
