/**
 * Review invitations through the developer API (CONTRACT §14) on a running
 * service without SMTP_URL (invitations are `unsent` links), on the embedded
 * store and (vitest project api-on-mongodb) on FerretDB: the permission
 * `invitations:write` (existing keys stay read-only: 403 with the contract's
 * body), one invitation or a batch (202), a batch with any invalid item
 * creating nothing (400 invalid_parameter, one detail per field),
 * idempotency by orderRef + email, the 30-day and unsubscribed rules, the
 * list with its state filter, the organization's rate limit, the cap per
 * organization, 405, and the invitee's email in no log line. Every answer is
 * checked against the OpenAPI document by the harness.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../logger.ts';
import { startTestService, type TestResponse, type TestService } from '../test/harness.ts';

let t: TestService;
const logLines: string[] = [];

beforeAll(async () => {
  t = await startTestService({ redis: false, logger: createLogger('debug', { write: (chunk: string) => void logLines.push(chunk) }) });
}, 90_000);
afterAll(async () => t?.close());

interface Created {
  id: string;
  email: string;
  state: string;
  sendAt: string | null;
  link: string | null;
  reason?: string;
}

/** A Growth organization with a key that may send invitations (`keys create --permissions`). */
async function inviter(rateLimit: number | null = null): Promise<{ orgId: string; key: string; readOnlyKey: string }> {
  const org = await t.org('growth', rateLimit);
  const key = await t.admin('POST', '/admin/keys', { orgId: org.orgId, name: 'shop', permissions: ['reviews:read', 'invitations:write'] });
  expect(key.status).toBe(201);
  expect(key.body.permissions).toEqual(['reviews:read', 'invitations:write']);
  return { orgId: org.orgId, key: key.body.key as string, readOnlyKey: org.key };
}

function post(key: string, body: unknown, headers: Record<string, string> = { 'content-type': 'application/json' }): Promise<TestResponse> {
  return t.get('/api/v1/invitations', { method: 'POST', key, headers, body: typeof body === 'string' ? body : JSON.stringify(body) });
}

const data = (res: TestResponse): Created[] => (res.body as { data: Created[] }).data;

describe('the permission invitations:write', () => {
  it('keeps keys without it read-only: 403 with the contract body on both operations, reviews still readable', async () => {
    const { readOnlyKey, orgId } = await inviter();
    for (const res of [await post(readOnlyKey, { email: 'a@example.com' }), await t.get('/api/v1/invitations', { key: readOnlyKey })]) {
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: 'forbidden', message: 'This API key may not send review invitations.', details: [] });
    }
    expect((await t.get('/api/v1/reviews', { key: readOnlyKey })).status).toBe(200);
    // keys list shows each key's permissions; a key made before permissions existed reads as reviews:read.
    const list = await t.admin('GET', `/admin/keys?orgId=${orgId}`);
    expect((list.body.data as { permissions: string[] }[]).map((k) => k.permissions).sort()).toEqual([['reviews:read'], ['reviews:read', 'invitations:write']]);
    const bad = await t.admin('POST', '/admin/keys', { orgId, name: 'x', permissions: ['reviews:write'] });
    expect(bad.status).toBe(400);
    expect(bad.body.details).toEqual([{ parameter: 'permissions', message: 'permissions must be a list of reviews:read, invitations:write' }]);
  });
});

describe('POST /api/v1/invitations', () => {
  it('creates one invitation: 202 with id, email, state, sendAt and link (unsent without SMTP_URL)', async () => {
    const { key } = await inviter();
    const res = await post(key, { email: ' Ana@Example.com ', name: 'Ana', orderRef: 'A-1', locale: 'de-AT' });
    expect(res.status).toBe(202);
    const [one] = data(res);
    expect(Object.keys(one!).sort()).toEqual(['email', 'id', 'link', 'sendAt', 'state']);
    expect(one).toMatchObject({ email: 'Ana@Example.com', state: 'unsent', sendAt: null });
    expect(one!.link).toMatch(new RegExp(`^${t.service.config.publicUrl}/r/i/${one!.id}\\.[A-Za-z0-9_-]{43}$`));
    const list = await t.get('/api/v1/invitations', { key });
    const [stored] = (list.body as { data: Record<string, unknown>[] }).data;
    expect(stored).toMatchObject({ id: one!.id, email: 'Ana@Example.com', name: 'Ana', orderRef: 'A-1', locale: 'de', productId: null, state: 'unsent', reason: null, link: one!.link });
  });

  it('takes {"data":[…]} of up to 100; any invalid item creates nothing (400 invalid_parameter, one detail per field)', async () => {
    const { key, orgId } = await inviter();
    await t.admin('POST', '/admin/products', { orgId, id: 'mug-1', name: 'Mug' });
    const res = await post(key, { data: [{ email: 'ok@example.com', productId: 'mug-1' }, { email: 'not-an-address', productId: 'nope', colour: 'red' }, { name: 'No email', sendAt: 'tomorrow' }] });
    expect(res.status).toBe(400);
    const body = res.body as { error: string; message: string; details: { parameter: string; message: string }[] };
    expect(body.error).toBe('invalid_parameter');
    expect(body.details.map((d) => d.parameter).sort()).toEqual(['data[1].colour', 'data[1].email', 'data[1].productId', 'data[2].email', 'data[2].sendAt'].sort());
    expect(body.message).toContain('Nothing was created');
    expect((await t.get('/api/v1/invitations', { key })).body).toMatchObject({ data: [], pagination: { total: 0 } });

    const tooMany = await post(key, { data: Array.from({ length: 101 }, (_, i) => ({ email: `p${i}@example.com` })) });
    expect(tooMany.status).toBe(400);
    expect((tooMany.body as { details: unknown[] }).details).toEqual([{ parameter: 'data', message: 'must be an array of 1 to 100 invitations' }]);
    for (const broken of ['{"email":', '[]', '"x"']) expect((await post(key, broken)).status).toBe(400);
    expect((await post(key, { email: 'x@example.com' }, { 'content-type': 'text/plain' })).body).toMatchObject({ error: 'invalid_parameter', details: [{ parameter: 'body' }] });

    const hundred = await post(key, { data: Array.from({ length: 100 }, (_, i) => ({ email: `p${i}@example.com`, ...(i === 0 && { productId: 'mug-1' }) })) });
    expect(hundred.status).toBe(202);
    expect(data(hundred)).toHaveLength(100);
    expect(data(hundred)[7]!.email).toBe('p7@example.com');
  });

  it('refuses an address with control, zero-width or bidi characters, whitespace inside or an empty domain label: one mailbox is never several addresses', async () => {
    const { key, orgId } = await inviter();
    // The review's cases (review 9 L1, poc5-email.mts), and more of the same kinds.
    const bad = ['a\u0000b@example.com', 'ana\u001b[31m@example.com', 'ana\u200b@example.com', 'ana@example.com.', '\u202eana@example.com', 'ana\u0085@example.com', 'ana\u007f@example.com', 'ana@exa\u200dmple.com', 'ana\u2028x@example.com', 'an a@example.com', 'ana@exam\u00a0ple.com', 'ana@example..com', 'ana@.example.com'];
    const res = await post(key, { data: bad.map((email) => ({ email })) });
    expect(res.status).toBe(400);
    expect((res.body as { details: { parameter: string; message: string }[] }).details).toEqual(bad.map((_, i) => ({ parameter: `data[${i}].email`, message: 'must be an email address (at most 254 characters)' })));
    // An unsubscribed mailbox is not invited again under another spelling: the variants are refused, the case is the same address.
    await t.service.invitations.unsubscribe(orgId, 'ana@example.com');
    for (const email of ['ana@example.com.', 'ana\u200b@example.com']) expect((await post(key, { email })).status, JSON.stringify(email)).toBe(400);
    expect(data(await post(key, { email: ' ANA@example.com ' }))[0]).toMatchObject({ state: 'skipped', reason: 'unsubscribed' });
    // Addresses as people have them stay accepted.
    const good = await post(key, { data: [{ email: 'o\'brien+shop@mail.example.co.uk' }, { email: 'josé@exämple.com' }, { email: 'x_y-z.1@sub-domain.example' }] });
    expect(good.status).toBe(202);
  });

  it('takes 100 invitations with every field at its longest, even with non-ASCII escaped; a larger body is still 413', async () => {
    const { key, orgId } = await inviter();
    const productId = `P-${'x'.repeat(98)}`;
    expect((await t.admin('POST', '/admin/products', { orgId, id: productId, name: 'Long' })).status).toBeLessThan(300);
    const domain = '@example.com';
    const sendAt = new Date(Date.now() + 86_400_000).toISOString();
    const items = Array.from({ length: 100 }, (_, i) => ({
      email: `${String(i).padStart(3, '0')}${'ü'.repeat(254 - 3 - domain.length)}${domain}`,
      name: '😀'.repeat(100),
      productId,
      orderRef: '𝄞'.repeat(100),
      locale: 'pt-BR',
      sendAt,
    }));
    expect(items[0]!.email).toHaveLength(254);
    // Non-ASCII escaped as \uXXXX, as Python's json.dumps writes it by default: the longest way to write them.
    const body = JSON.stringify({ data: items }).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
    expect(Buffer.byteLength(body)).toBeGreaterThan(400_000);
    const res = await post(key, body);
    expect(res.status).toBe(202);
    expect(data(res)).toHaveLength(100);
    expect(data(res)[99]!.email).toBe(items[99]!.email);
    // Bounded all the same.
    const huge = await post(key, `{"data":[{"email":"a@example.com"}]${' '.repeat(600_000)}}`);
    expect(huge.status).toBe(413);
    expect(huge.body).toMatchObject({ error: 'payload_too_large' });
  });

  it('answers the existing invitation for the same orderRef and email (nothing twice)', async () => {
    const { key } = await inviter();
    const first = data(await post(key, { email: 'ben@example.com', orderRef: 'B-7' }))[0]!;
    const again = await post(key, { data: [{ email: 'BEN@example.com', orderRef: 'B-7' }, { email: 'ben@example.com', orderRef: 'B-8' }] });
    expect(again.status).toBe(202);
    expect(data(again)[0]).toEqual(first);
    // Another order of the same address within 30 days: stored, skipped.
    expect(data(again)[1]).toMatchObject({ state: 'skipped', reason: 'recently_invited', sendAt: null, link: null });
    expect((await t.get('/api/v1/invitations', { key })).body).toMatchObject({ pagination: { total: 2 } });
  });

  it('skips an address invited in the last 30 days (recently_invited) and an unsubscribed one (unsubscribed wins)', async () => {
    const { key, orgId } = await inviter();
    expect(data(await post(key, { email: 'cy@example.com' }))[0]!.state).toBe('unsent');
    expect(data(await post(key, { email: 'Cy@example.com' }))[0]).toMatchObject({ state: 'skipped', reason: 'recently_invited' });
    await t.service.invitations.unsubscribe(orgId, 'CY@example.com');
    await t.service.invitations.unsubscribe(orgId, 'dee@example.com');
    const res = data(await post(key, { data: [{ email: 'cy@example.com' }, { email: 'dee@example.com' }, { email: 'eve@example.com' }] }));
    expect(res.map((r) => [r.state, r.reason ?? null])).toEqual([
      ['skipped', 'unsubscribed'],
      ['skipped', 'unsubscribed'],
      ['unsent', null],
    ]);
    // Another organization's unsubscribed list is its own.
    const other = await inviter();
    expect(data(await post(other.key, { email: 'dee@example.com' }))[0]!.state).toBe('unsent');
  });

  it('counts in the organization rate limit', async () => {
    const { key } = await inviter(2);
    expect((await post(key, { email: 'r1@example.com' })).status).toBe(202);
    expect((await t.get('/api/v1/invitations', { key })).status).toBe(200);
    const third = await post(key, { email: 'r2@example.com' });
    expect(third.status).toBe(429);
    expect(third.headers['retry-after']).toMatch(/^\d+$/);
  });

  it('refuses other methods with 405 and Allow', async () => {
    const { key } = await inviter();
    const res = await t.get('/api/v1/invitations', { method: 'PUT', key });
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD, POST');
  });
});

describe('GET /api/v1/invitations', () => {
  it('lists newest first, filters by state, pages with pagination, and refuses a bad parameter', async () => {
    const { key } = await inviter();
    const ids: string[] = [];
    for (const email of ['l1@example.com', 'l2@example.com', 'l1@example.com']) ids.push(data(await post(key, { email }))[0]!.id);
    const page = await t.get('/api/v1/invitations?limit=2&offset=0', { key });
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ pagination: { total: 3, limit: 2, offset: 0, hasMore: true } });
    expect((page.body as { data: { id: string }[] }).data.map((i) => i.id)).toEqual([ids[2], ids[1]]);
    const skipped = await t.get('/api/v1/invitations?state=skipped', { key });
    expect((skipped.body as { data: { id: string; reason: string }[] }).data).toMatchObject([{ id: ids[2], reason: 'recently_invited' }]);
    const bad = await t.get('/api/v1/invitations?state=opened&limit=0', { key });
    expect(bad.status).toBe(400);
    expect((bad.body as { details: { parameter: string }[] }).details.map((d) => d.parameter).sort()).toEqual(['limit', 'state']);
    // Another organization's key sees none of them.
    const other = await inviter();
    expect((await t.get('/api/v1/invitations', { key: other.key })).body).toMatchObject({ data: [], pagination: { total: 0 } });
  });
});

describe('personal data', () => {
  it('never writes an invitee address into the log', async () => {
    const { key } = await inviter();
    const marker = `zq${Date.now()}x@example.com`;
    expect((await post(key, { data: [{ email: marker }, { email: marker, orderRef: 'z' }] })).status).toBe(202);
    expect((await post(key, { email: `bad ${marker}` })).status).toBe(400);
    await t.get('/api/v1/invitations', { key });
    expect(logLines.length).toBeGreaterThan(0);
    expect(logLines.join('\n').toLowerCase()).not.toContain(marker.split('@')[0]);
  });
});
