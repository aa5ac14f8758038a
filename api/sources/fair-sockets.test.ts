/**
 * Platform calls are fair across organizations (CONTRACT §11, "Limits per
 * organization"; issue 34, second review M2 and L2): every organization calls
 * the same platform hosts through one pool of sockets, so an organization has
 * at most PER_ORG_PER_HOST calls in flight per host and its others wait in its
 * own queue; another organization's call reaches the platform while they wait.
 * A call has an overall deadline that counts its wait too. Against the local
 * HTTPS platform fake, holding its answers (no timing is asserted: who reached
 * the platform, and who waits).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { HttpClient, MAX_SOCKETS, PER_ORG_PER_HOST } from './http.ts';
import { PlatformFake } from './testing/platform-fake.ts';

let fake: PlatformFake;
let host: string;

beforeAll(async () => {
  fake = await PlatformFake.start();
  host = new URL(fake.url).host;
});

afterEach(() => fake.release());

afterAll(async () => {
  await fake.close();
});

const heldOf = (org: string): number => fake.held.filter((h) => h.path.includes(`org=${org}`)).length;

describe('platform calls per organization', () => {
  it("one organization's burst holds no other organization's call: B reaches the platform while A's calls wait in A's own queue", async () => {
    const http = new HttpClient({ extraCa: [fake.ca] });
    try {
      fake.holding = true;
      const a = http.fork('org_a');
      const burst = Array.from({ length: 40 }, (_, i) => a.call(`${fake.url}/v1/business-units/u/reviews?org=a&n=${i}`).then((r) => r.status));
      await vi.waitFor(() => expect(heldOf('a')).toBe(PER_ORG_PER_HOST), { timeout: 10_000 });
      const b = http.fork('org_b').call(`${fake.url}/v1/business-units/u/reviews?org=b`);
      // B's call reaches the platform although A has 38 calls waiting and none of A's has been answered.
      await vi.waitFor(() => expect(heldOf('b')).toBe(1), { timeout: 10_000 });
      expect(heldOf('a')).toBe(PER_ORG_PER_HOST);
      expect(PER_ORG_PER_HOST).toBeLessThan(MAX_SOCKETS);
      const key = HttpClient.placeKey('org_a', host);
      expect([http.limit.running(key), http.limit.waiting(key)]).toEqual([PER_ORG_PER_HOST, 40 - PER_ORG_PER_HOST]);
      expect(http.limit.running(HttpClient.placeKey('org_b', host))).toBe(1);
      fake.release();
      expect((await b).status).toBe(200);
      expect((await Promise.all(burst)).length).toBe(40);
      expect(http.limit.running(key) + http.limit.waiting(key)).toBe(0);
    } finally {
      http.close();
    }
  });

  it('a call ends at its overall deadline, its wait for a place included, and frees its place', async () => {
    const http = new HttpClient({ extraCa: [fake.ca], deadlineMs: 500 });
    try {
      fake.holding = true;
      const c = http.fork('org_c');
      // Two reach the platform and are never answered; the third waits for a place until its deadline.
      const calls = Array.from({ length: PER_ORG_PER_HOST + 1 }, (_, i) => c.call(`${fake.url}/v1/business-units/u/reviews?org=c&n=${i}`).then(() => null, (err: Error) => err.message));
      const outcomes = await Promise.all(calls);
      expect(outcomes).toEqual(Array.from({ length: PER_ORG_PER_HOST + 1 }, () => `could not reach ${host} (no answer within 0.5 s)`));
      expect(heldOf('c')).toBe(PER_ORG_PER_HOST);
      const key = HttpClient.placeKey('org_c', host);
      expect(http.limit.running(key) + http.limit.waiting(key)).toBe(0);
    } finally {
      http.close();
    }
  });
});
