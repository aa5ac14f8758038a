/** The per-organization limit of outbound DNS lookups (host-resolver.ts), on its own. */
import { describe, expect, it } from 'vitest';
import { PerKeyLimit } from './per-key-limit.ts';

/** A task that runs until its `finish` is called. */
function gate(): { task: () => Promise<string>; started: boolean; finish: (value: string) => void } {
  const { promise, resolve } = Promise.withResolvers<string>();
  const g = {
    started: false,
    task: () => {
      g.started = true;
      return promise;
    },
    finish: resolve,
  };
  return g;
}

/** Lets every promise callback queued so far run. */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('PerKeyLimit', () => {
  it('runs at most 4 tasks of one key at a time, the next in order as each ends; another key is never held', async () => {
    const limit = new PerKeyLimit(4);
    const a = Array.from({ length: 7 }, () => gate());
    const results = a.map((g) => limit.run('org_a', g.task));
    await settle();
    expect(a.map((g) => g.started)).toEqual([true, true, true, true, false, false, false]);
    expect([limit.running('org_a'), limit.waiting('org_a')]).toEqual([4, 3]);

    // org_b has places of its own although org_a's queue is full.
    const b = gate();
    const bResult = limit.run('org_b', b.task);
    await settle();
    expect(b.started).toBe(true);
    b.finish('b');
    await expect(bResult).resolves.toBe('b');

    a[2]!.finish('a2');
    await expect(results[2]).resolves.toBe('a2');
    await settle();
    expect(a.map((g) => g.started)).toEqual([true, true, true, true, true, false, false]);
    expect(limit.running('org_a')).toBe(4);

    for (const [i, g] of a.entries()) g.finish(`a${i}`);
    await expect(Promise.all(results)).resolves.toEqual(['a0', 'a1', 'a2', 'a3', 'a4', 'a5', 'a6']);
    expect(a.every((g) => g.started)).toBe(true);
    expect([limit.running('org_a'), limit.waiting('org_a')]).toEqual([0, 0]);
  });

  it('a task that fails frees its place; a waiter whose signal aborts leaves the queue and never runs', async () => {
    const limit = new PerKeyLimit(1);
    const first = gate();
    const running = limit.run('k', first.task);
    const giveUp = new AbortController();
    const late = gate();
    const abandoned = limit.run('k', late.task, giveUp.signal);
    const next = gate();
    const after = limit.run('k', next.task);
    expect(limit.waiting('k')).toBe(2);
    giveUp.abort(new Error('no answer within 5 s'));
    await expect(abandoned).rejects.toThrow('no answer within 5 s');
    expect(limit.waiting('k')).toBe(1);

    const failing = limit.run('other', () => Promise.reject(new Error('boom')));
    await expect(failing).rejects.toThrow('boom');
    expect(limit.running('other')).toBe(0);

    first.finish('first');
    await running;
    next.finish('next');
    await expect(after).resolves.toBe('next');
    expect(late.started).toBe(false);
    expect([limit.running('k'), limit.waiting('k')]).toEqual([0, 0]);
  });

  it('tryRun starts a task only when its key has a free place and nobody waits, else answers null and queues nothing', async () => {
    const limit = new PerKeyLimit(2);
    const a = [gate(), gate()];
    const running = a.map((g) => limit.tryRun('org_a', g.task));
    expect(running.every((r) => r !== null)).toBe(true);
    await settle();
    expect(a.every((g) => g.started)).toBe(true);
    const turnedAway = gate();
    expect(limit.tryRun('org_a', turnedAway.task)).toBeNull();
    expect([limit.running('org_a'), limit.waiting('org_a')]).toEqual([2, 0]);
    // Another key has places of its own.
    const b = gate();
    const bRun = limit.tryRun('org_b', b.task);
    expect(bRun).not.toBeNull();
    b.finish('b');
    await expect(bRun).resolves.toBe('b');
    // A waiter of run() goes before a tryRun: the freed place is its.
    const waiter = gate();
    const waited = limit.run('org_a', waiter.task);
    a[0]!.finish('a0');
    await expect(running[0]).resolves.toBe('a0');
    expect(limit.tryRun('org_a', turnedAway.task)).toBeNull();
    a[1]!.finish('a1');
    waiter.finish('w');
    await expect(Promise.all([running[1], waited])).resolves.toEqual(['a1', 'w']);
    expect(turnedAway.started).toBe(false);
    expect([limit.running('org_a'), limit.waiting('org_a')]).toEqual([0, 0]);
  });
});
