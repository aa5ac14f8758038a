/**
 * The sending slots (SMTP_RATE_PER_MINUTE across all instances, fair between
 * organizations), in process and in a real Redis shared by two "instances".
 * The clock is given to `take`, so the minutes are simulated: the figures
 * below are counts of grants, not measured times.
 */
import { Redis } from 'ioredis';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { InProcessSlots, RedisSlots, type MailSlots, type SlotOptions } from './slots.ts';

const clients: Redis[] = [];
afterAll(async () => {
  await Promise.all(clients.map((c) => c.quit()));
});

/** Two instances sharing one schedule: the same object in process, two clients on one prefix in Redis. */
const kinds: [string, (options: SlotOptions) => [MailSlots, MailSlots]][] = [
  ['in process', (options) => {
    const one = new InProcessSlots(options);
    return [one, one];
  }],
  ['Redis, two instances', (options) => {
    const prefix = `t${Math.random().toString(36).slice(2, 10)}:`;
    const a = new Redis(inject('redisUrl'), { keyPrefix: prefix });
    const b = new Redis(inject('redisUrl'), { keyPrefix: prefix });
    clients.push(a, b);
    return [new RedisSlots(a, options), new RedisSlots(b, options)];
  }],
];

describe.each(kinds)('mail slots (%s)', (_name, make) => {
  it('grant at most SMTP_RATE_PER_MINUTE in any minute, all of it while mail waits, across instances', async () => {
    const [one, two] = make({ ratePerMinute: 60 });
    const grants: { at: number; org: string }[] = [];
    // Three simulated minutes; every 50 ms instance one asks for org A, instance two for B and C.
    for (let at = 0; at < 180_000; at += 50) {
      for (const [slots, org] of [[one, 'org_A'], [two, 'org_B'], [two, 'org_C']] as const) {
        if ((await slots.take(org, at)) === 0) grants.push({ at, org });
      }
    }
    for (const g of grants) expect(grants.filter((h) => h.at >= g.at && h.at < g.at + 60_000).length).toBeLessThanOrEqual(60);
    expect(grants.length).toBe(180);
    // Fair: each of the three got a third, in turns.
    for (const org of ['org_A', 'org_B', 'org_C']) expect(grants.filter((g) => g.org === org).length).toBe(60);
    expect(grants.slice(0, 6).map((g) => g.org)).toEqual(['org_A', 'org_B', 'org_C', 'org_A', 'org_B', 'org_C']);
  });

  it('tell a caller how long to wait, and another organization whose turn it is not to ask again soon', async () => {
    const [one, two] = make({ ratePerMinute: 60 });
    expect(await one.take('org_A', 1_000)).toBe(0);
    expect(await one.take('org_A', 1_200)).toBe(800);
    // B asks while the slot is not free: it is waiting now, and never served, so the next slot is B's.
    expect(await two.take('org_B', 1_300)).toBe(700);
    const aTurn = await one.take('org_A', 2_000);
    expect(aTurn).toBeGreaterThan(0);
    expect(aTurn).toBeLessThanOrEqual(25);
    expect(await two.take('org_B', 2_010)).toBe(0);
  });

  it("a newcomer's first mail goes next, however long another organization's backlog", async () => {
    const [one, two] = make({ ratePerMinute: 600 });
    let at = 0;
    let aGrants = 0;
    for (; aGrants < 500 && at < 120_000; at += 10) if ((await one.take('org_big', at)) === 0) aGrants++;
    // org_small arrives; within two slots it has had its mail.
    const arrived = at;
    let smallAt = -1;
    for (; smallAt < 0 && at < arrived + 60_000; at += 10) {
      await one.take('org_big', at);
      if ((await two.take('org_small', at)) === 0) smallAt = at;
    }
    expect(smallAt).toBeGreaterThanOrEqual(arrived);
    expect(smallAt - arrived).toBeLessThanOrEqual(2 * 100);
  });

  it("an organization that stopped asking (its instance died) holds the others' turn only until it is stale", async () => {
    const [one, two] = make({ ratePerMinute: 60, staleMs: 5_000 });
    expect(await one.take('org_A', 0)).toBe(0);
    // org_gone asks once while the slot is taken, then never again.
    expect(await two.take('org_gone', 100)).toBeGreaterThan(0);
    let granted = -1;
    for (let at = 1_000; granted < 0 && at < 20_000; at += 100) if ((await one.take('org_A', at)) === 0) granted = at;
    expect(granted).toBeGreaterThanOrEqual(5_100);
    expect(granted).toBeLessThan(6_000);
  });

  it('an organization that leaves and comes back does not jump the line', async () => {
    const [one, two] = make({ ratePerMinute: 60 });
    const order: string[] = [];
    for (let at = 0; at < 10_000; at += 100) {
      if ((await two.take('org_steady', at)) === 0) order.push('steady');
      // org_hop sends one mail at a time: it asks, and leaves once it had its slot.
      if ((await one.take('org_hop', at)) === 0) {
        order.push('hop');
        await one.leave('org_hop');
      }
    }
    expect(order.filter((o) => o === 'steady').length).toBe(5);
    expect(order.filter((o) => o === 'hop').length).toBe(5);
  });
});

describe('mail slots', () => {
  it('refuse a rate that is not a whole number of at least 1', () => {
    for (const ratePerMinute of [0, -1, 1.5, Number.NaN]) expect(() => new InProcessSlots({ ratePerMinute })).toThrow(RangeError);
  });
});
