/** Secrets, rotation and signatures as pure functions, checked against the `standardwebhooks` package. */
import { describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { generateSecret, liveSecrets, rotateSecrets, ROTATION_OVERLAP_MS, type EndpointSecret } from './secrets.ts';
import { signedHeaders, signV1 } from './signature.ts';
import { DEFAULT_SUBSCRIPTION, EVENT_TYPES, eventBody, newMessageId, reviewEvent, subscribes, testEvent } from './events.ts';
import { reviewFixture } from './fixtures.ts';

const HOUR = 3600 * 1000;

describe('secrets', () => {
  it('are whsec_ + base64 of 32 random bytes', () => {
    const a = generateSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(a.slice(6), 'base64')).toHaveLength(32);
    expect(generateSecret()).not.toBe(a);
  });

  it('rotation keeps the old secret signing for 24 hours, then only the new one', () => {
    const t0 = new Date('2026-01-01T00:00:00Z');
    const first: EndpointSecret[] = [{ secret: 'whsec_old', createdAt: t0, expiresAt: null }];
    const at = new Date(t0.getTime() + 100 * HOUR);
    const rotated = rotateSecrets(first, 'whsec_new', at);
    expect(liveSecrets(rotated, at)).toEqual(['whsec_new', 'whsec_old']);
    expect(liveSecrets(rotated, new Date(at.getTime() + ROTATION_OVERLAP_MS - 1))).toEqual(['whsec_new', 'whsec_old']);
    expect(liveSecrets(rotated, new Date(at.getTime() + ROTATION_OVERLAP_MS))).toEqual(['whsec_new']);
  });

  it('a second rotation within the day does not extend the first secret and drops expired ones', () => {
    const t0 = new Date('2026-01-01T00:00:00Z');
    const once = rotateSecrets([{ secret: 'whsec_a', createdAt: t0, expiresAt: null }], 'whsec_b', t0);
    const twice = rotateSecrets(once, 'whsec_c', new Date(t0.getTime() + 10 * HOUR));
    expect(twice.find((s) => s.secret === 'whsec_a')?.expiresAt).toEqual(new Date(t0.getTime() + 24 * HOUR));
    expect(twice.find((s) => s.secret === 'whsec_b')?.expiresAt).toEqual(new Date(t0.getTime() + 34 * HOUR));
    const later = rotateSecrets(twice, 'whsec_d', new Date(t0.getTime() + 30 * HOUR));
    expect(later.map((s) => s.secret)).toEqual(['whsec_b', 'whsec_c', 'whsec_d']);
  });
});

describe('live secrets, at most three (CONTRACT §12)', () => {
  const t0 = new Date('2026-01-01T00:00:00Z');
  const at = (minutes: number) => new Date(t0.getTime() + minutes * 60_000);

  it('a fourth rotation within the day ends the oldest at once: three live, the newest three, and three signatures', () => {
    let secrets: EndpointSecret[] = [{ secret: 'whsec_0', createdAt: t0, expiresAt: null }];
    for (let n = 1; n <= 4; n++) secrets = rotateSecrets(secrets, `whsec_${n}`, at(n));
    expect(secrets.map((s) => s.secret)).toEqual(['whsec_2', 'whsec_3', 'whsec_4']);
    expect(liveSecrets(secrets, at(5))).toEqual(['whsec_4', 'whsec_3', 'whsec_2']);
    const keys = [generateSecret(), generateSecret(), generateSecret(), generateSecret(), generateSecret()];
    let real: EndpointSecret[] = [{ secret: keys[0]!, createdAt: t0, expiresAt: null }];
    for (let n = 1; n <= 4; n++) real = rotateSecrets(real, keys[n]!, at(n));
    const body = eventBody(testEvent('wh_1', at(5)));
    const headers = signedHeaders('msg_x', body, liveSecrets(real, at(5)), at(5));
    const seconds = Math.floor(at(5).getTime() / 1000);
    expect(headers['webhook-signature']).toBe([keys[4]!, keys[3]!, keys[2]!].map((k) => signV1(k, 'msg_x', seconds, body)).join(' '));
  });

  it('a list stored with more (before the cap) signs with its newest three and is trimmed at its next rotation', () => {
    const stored: EndpointSecret[] = Array.from({ length: 5000 }, (_, n) => ({ secret: `whsec_${n}`, createdAt: at(n), expiresAt: n === 4999 ? null : at(24 * 60 + n) }));
    expect(liveSecrets(stored, at(5000))).toEqual(['whsec_4999', 'whsec_4998', 'whsec_4997']);
    const rotated = rotateSecrets(stored, 'whsec_new', at(5000));
    expect(rotated.map((s) => s.secret)).toEqual(['whsec_4998', 'whsec_4999', 'whsec_new']);
    expect(rotated.find((s) => s.secret === 'whsec_4999')?.expiresAt).toEqual(at(5000 + 24 * 60));
  });
});

describe('signatures', () => {
  it('equal what the standardwebhooks package computes', () => {
    const secret = generateSecret();
    const at = new Date('2026-11-25T12:00:00.750Z');
    const body = eventBody(reviewEvent('review.updated', reviewFixture(), at));
    expect(signV1(secret, 'msg_1', Math.floor(at.getTime() / 1000), body)).toBe(new Webhook(secret).sign('msg_1', at, body));
  });

  it('headers carry the id, this attempt\'s Unix seconds and one v1 entry per live secret, verified by the package', () => {
    const secrets = [generateSecret(), generateSecret()];
    const now = new Date();
    const body = eventBody(testEvent('wh_1', now));
    const headers = signedHeaders('msg_x', body, secrets, now);
    expect(headers['webhook-id']).toBe('msg_x');
    expect(headers['webhook-timestamp']).toBe(String(Math.floor(now.getTime() / 1000)));
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    for (const s of secrets) expect(new Webhook(s).verify(body, { ...headers })).toEqual(JSON.parse(body));
    expect(() => new Webhook(secrets[0]!).verify(body.replace('test', 'TEST'), { ...headers })).toThrow();
  });

  it('refuse to sign without a live secret', () => {
    expect(() => signedHeaders('msg_x', '{}', [], new Date())).toThrow(/without a live secret/);
  });
});

describe('event payloads', () => {
  it('are {type, timestamp, data} with the review as the API shows it', () => {
    const at = new Date('2026-11-25T12:00:00.000Z');
    const event = JSON.parse(eventBody(reviewEvent('review.created', reviewFixture(), at))) as Record<string, unknown>;
    expect(Object.keys(event)).toEqual(['type', 'timestamp', 'data']);
    expect(event.type).toBe('review.created');
    expect(event.timestamp).toBe('2026-11-25T12:00:00.000Z');
    const data = event.data as Record<string, unknown>;
    expect(Object.keys(data)).toEqual(['id', 'platform', 'authorName', 'authorAvatar', 'rating', 'content', 'date', 'url', 'language', 'isVerified', 'sentiment', 'sentimentLabel', 'aiSummary', 'aiThemes', 'createdAt', 'productId', 'reply']);
    expect(data).not.toHaveProperty('orgId');
    expect(data.productId).toBeNull();
    const about = JSON.parse(eventBody(reviewEvent('review.updated', reviewFixture({ productId: 'shoe-42' }), at))) as { data: { productId: unknown } };
    expect(about.data.productId).toBe('shoe-42');
    expect(data.reply).toBeNull();
    const answered = JSON.parse(eventBody(reviewEvent('review.updated', reviewFixture({ reply: { text: 'Merci ✓ — à bientôt', date: '2026-11-21T09:00:00.000Z' } }), at))) as { data: { reply: unknown } };
    expect(answered.data.reply).toEqual({ text: 'Merci ✓ — à bientôt', date: '2026-11-21T09:00:00.000Z' });
  });

  it('name the types of the contract; new endpoints get every review.* and source.* type', () => {
    expect(EVENT_TYPES).toEqual(['review.created', 'review.updated', 'review.removed', 'source.state_changed', 'reply.failed', 'webhook.test']);
    expect(DEFAULT_SUBSCRIPTION).toEqual(['review.created', 'review.updated', 'review.removed', 'source.state_changed']);
    expect(subscribes(['review.created'], 'review.updated')).toBe(false);
    expect(subscribes(['review.created'], 'webhook.test')).toBe(true);
  });

  it('message ids are msg_ + 128 random bits', () => {
    expect(newMessageId()).toMatch(/^msg_[A-Za-z0-9_-]{22}$/);
    expect(newMessageId()).not.toBe(newMessageId());
  });
});
