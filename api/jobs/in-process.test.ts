/**
 * The in-process runner's slots are shared across organizations (issue 34,
 * second review L2, fourth review M-A): one organization's many sources due
 * together never hold every slot while another organization's source waits,
 * an organization runs at most 2 syncs at once, and one sync that does not end
 * holds nobody else's scheduled syncs. The handler holds
 * each run until released: who started is asserted, never how long anything took.
 */
import { describe, expect, it, vi } from 'vitest';
import { createLogger } from '../logger.ts';
import { InProcessJobs, inTurns } from './in-process.ts';
import type { Due, JobResult, SyncJob } from './jobs.ts';

describe('in-process source jobs', () => {
  it('takes the due sources one organization after another', () => {
    const due: Due[] = ['x1', 'x2', 'x3', 'y1', 'x4', 'z1', 'y2'].map((id) => ({ sourceId: id, orgId: `org_${id[0]!}`, nextSyncAt: '' }));
    expect(inTurns(due).map((d) => d.sourceId)).toEqual(['x1', 'y1', 'z1', 'x2', 'y2', 'x3', 'x4']);
  });

  it("another organization's due source gets a slot while one organization has 5 due, and that organization never runs more than 2 at once, a person's run included", async () => {
    const s = schedule();
    for (const id of ['x1', 'x2', 'x3', 'x4', 'x5']) s.add(id, 'org_x');
    s.add('y1', 'org_y');
    const jobs = new InProcessJobs<null>({ logger: createLogger('silent'), tickMs: 20, concurrency: 4, due: s.due, handler: s.held });
    await jobs.start();
    try {
      await vi.waitFor(() => expect(s.started).toHaveLength(3), { timeout: 10_000 });
      // A few more ticks: a free slot is there, but org_x has its 2.
      const asks = s.asks;
      await vi.waitFor(() => expect(s.asks).toBeGreaterThanOrEqual(asks + 3), { timeout: 10_000 });
      expect(s.started).toEqual(['x1', 'y1', 'x2']);
      // A person's run of org_x waits for a place of org_x, and goes before its scheduled ones.
      const click = jobs.runNow({ sourceId: 'x9', orgId: 'org_x' });
      await vi.waitFor(() => expect(s.asks).toBeGreaterThanOrEqual(asks + 6), { timeout: 10_000 });
      expect(s.started).toEqual(['x1', 'y1', 'x2']);
      s.release('x1');
      await vi.waitFor(() => expect(s.started).toContain('x9'), { timeout: 10_000 });
      s.release('x9');
      expect(await click).toBeNull();
      await vi.waitFor(() => expect(s.started).toContain('x3'), { timeout: 10_000 });
      s.release('x2');
      s.release('y1');
      await vi.waitFor(() => expect(s.started).toContain('x4'), { timeout: 10_000 });
      expect(s.started.slice(0, 4)).toEqual(['x1', 'y1', 'x2', 'x9']);
      expect(s.most.get('org_x')).toBe(2);
    } finally {
      const drain = setInterval(() => s.releaseAll(), 5);
      await jobs.close();
      clearInterval(drain);
    }
  });

  it("one organization's sync that does not end holds no other organization's scheduled syncs (fourth review M-A), is never started twice, and shutdown waits for it", async () => {
    const s = schedule();
    s.add('a1', 'org_a'); // never ends until released
    s.add('b1', 'org_b', { instant: true }); // due again as soon as it ends
    const jobs = new InProcessJobs<null>({ logger: createLogger('silent'), tickMs: 20, concurrency: 4, due: s.due, handler: s.held });
    await jobs.start();
    let closed = false;
    try {
      await vi.waitFor(() => expect(s.started.filter((id) => id === 'b1').length).toBeGreaterThanOrEqual(5), { timeout: 10_000 });
      // a1 is due at every one of those ticks, and still running: started once.
      expect(s.started.filter((id) => id === 'a1')).toEqual(['a1']);
      const closing = jobs.close().then(() => (closed = true));
      const before = s.started.length;
      for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
      expect(closed).toBe(false);
      s.release('a1');
      await closing;
      expect(s.started.length).toBe(before);
    } finally {
      s.releaseAll();
      if (!closed) await jobs.close();
    }
  });

  it('a slot freed takes the next due source at once, without waiting for the next tick (a round of many sources is not one tick each)', async () => {
    const s = schedule();
    const ids = ['p', 'q', 'r', 's', 't', 'u'].map((o) => `${o}1`);
    for (const id of ids) s.add(id, `org_${id[0]!}`);
    const jobs = new InProcessJobs<null>({ logger: createLogger('silent'), tickMs: 3_600_000, concurrency: 4, due: s.due, handler: s.held });
    await jobs.start();
    try {
      await vi.waitFor(() => expect(s.started).toEqual(ids.slice(0, 4)), { timeout: 10_000 });
      s.release('p1');
      await vi.waitFor(() => expect(s.started).toEqual(ids.slice(0, 5)), { timeout: 10_000 });
      s.release('q1');
      await vi.waitFor(() => expect(s.started).toEqual(ids), { timeout: 10_000 });
      expect(s.asks).toBe(1);
    } finally {
      const drain = setInterval(() => s.releaseAll(), 5);
      await jobs.close();
      clearInterval(drain);
    }
  });

  it('merges Sync now clicks on a source whose sync is held: one more run after it (a full pass when asked), not one per click', async () => {
    const started: Array<{ sourceId: string; full?: boolean }> = [];
    const release: Array<() => void> = [];
    const jobs = new InProcessJobs<string>({
      logger: createLogger('silent'),
      tickMs: 3_600_000,
      due: async () => [],
      handler: (job) =>
        new Promise<JobResult<string>>((resolve) => {
          started.push({ ...job });
          release.push(() => resolve({ value: `synced ${job.sourceId}`, retry: null }));
        }),
    });
    try {
      const first = jobs.runNow({ sourceId: 'src_A' });
      await vi.waitFor(() => expect(started).toHaveLength(1));
      const clicks = [first, jobs.runNow({ sourceId: 'src_A' }), ...Array.from({ length: 4 }, () => jobs.runNow({ sourceId: 'src_A', full: true }))];
      release.splice(0).forEach((r) => r());
      await vi.waitFor(() => expect(started).toHaveLength(2));
      release.splice(0).forEach((r) => r());
      expect(await Promise.all(clicks)).toEqual(Array(6).fill('synced src_A'));
      expect(started).toEqual([{ sourceId: 'src_A' }, { sourceId: 'src_A', full: true }]);
    } finally {
      const drain = setInterval(() => release.splice(0).forEach((r) => r()), 5);
      await jobs.close();
      clearInterval(drain);
    }
  });
});

/**
 * A store's schedule in miniature: a source is due until its sync ends (then not again, or at
 * once for an `instant` one); `held` syncs until the test releases them (an instant one ends at once).
 */
function schedule() {
  const sources = new Map<string, { orgId: string; due: boolean; instant: boolean }>();
  const waiting = new Map<string, () => void>();
  const running = new Map<string, number>();
  const s = {
    started: [] as string[],
    asks: 0,
    /** The most syncs each organization ran at once. */
    most: new Map<string, number>(),
    add(id: string, orgId: string, opts: { instant?: boolean } = {}) {
      sources.set(id, { orgId, due: true, instant: opts.instant ?? false });
    },
    due: async (): Promise<Due[]> => {
      s.asks++;
      return [...sources].filter(([, v]) => v.due).map(([sourceId, v]) => ({ sourceId, orgId: v.orgId, nextSyncAt: '2026-01-01T00:00:00.000Z' }));
    },
    held: (job: SyncJob): Promise<JobResult<null>> => {
      const source = sources.get(job.sourceId);
      const orgId = source?.orgId ?? job.orgId ?? job.sourceId;
      s.started.push(job.sourceId);
      const now = (running.get(orgId) ?? 0) + 1;
      running.set(orgId, now);
      s.most.set(orgId, Math.max(now, s.most.get(orgId) ?? 0));
      return new Promise((resolve) => {
        const end = () => {
          running.set(orgId, running.get(orgId)! - 1);
          if (source) source.due = source.instant;
          resolve({ value: null, retry: null });
        };
        if (source?.instant) end();
        else waiting.set(job.sourceId, end);
      });
    },
    release(id: string) {
      const end = waiting.get(id);
      if (!end) throw new Error(`${id} is not running`);
      waiting.delete(id);
      end();
    },
    releaseAll() {
      for (const id of [...waiting.keys()]) s.release(id);
    },
  };
  return s;
}
