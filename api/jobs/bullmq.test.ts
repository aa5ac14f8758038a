/**
 * BullMQ source jobs on a real Redis (issue 34, third review N1): no job waits
 * inside a worker slot. An organization clicking "Sync now" again and again on
 * a source whose sync is held leaves the other slots to other organizations,
 * and its clicks are merged (one more run after the one in progress, not one
 * each); an organization's many sources hold at most its share of the slots.
 * The handler holds each run until released: who started is asserted, never
 * how long anything took.
 */
import { Queue } from 'bullmq';
import { afterEach, describe, expect, inject, it, vi } from 'vitest';
import { createLogger } from '../logger.ts';
import { BullJobs } from './bullmq.ts';
import type { JobResult, SyncJob } from './jobs.ts';

const logger = createLogger('silent');

describe('BullMQ source jobs (Redis)', () => {
  const cleanup: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  /** A runner whose handler holds the runs of `held` sources until `release()`; `started` lists each run's job. */
  async function runner(held: (sourceId: string) => boolean) {
    const keyPrefix = `bulljobs${process.pid}${Math.random().toString(36).slice(2, 8)}:`;
    const started: SyncJob[] = [];
    const waiting: Array<() => void> = [];
    let holding = true;
    const jobs = new BullJobs<string>({
      redisUrl: inject('redisUrl'),
      keyPrefix,
      logger,
      concurrency: 4,
      skipped: (job) => `skipped ${job.sourceId}`,
      handler: async (job) => {
        started.push(job);
        if (holding && held(job.sourceId)) await new Promise<void>((resolve) => waiting.push(resolve));
        return { value: `synced ${job.sourceId}`, retry: null } satisfies JobResult<string>;
      },
    });
    /** Requests that reached Redis (a job added, or merged into the job of that id already there). */
    let requests = 0;
    const add = Queue.prototype.add;
    const spy = vi.spyOn(Queue.prototype, 'add').mockImplementation(async function (this: Queue, ...args: Parameters<Queue['add']>) {
      const job = await add.apply(this, args);
      requests++;
      return job;
    });
    await jobs.start();
    const release = () => {
      holding = false;
      for (const r of waiting.splice(0)) r();
    };
    cleanup.push(async () => {
      release();
      await jobs.close();
      spy.mockRestore();
    });
    return { jobs, started, release, requests: () => requests };
  }

  it("an organization's six Sync now clicks on its held source leave another organization's sync running, and end in one more sync at most", async () => {
    const { jobs, started, release, requests } = await runner((id) => id === 'src_A');
    const first = jobs.runNow({ sourceId: 'src_A', orgId: 'org_A' });
    await vi.waitFor(() => expect(started.map((j) => j.sourceId)).toEqual(['src_A']), { timeout: 20_000 });
    // Five more clicks, full passes, while A's first sync is held; all of them reach the queue before B asks.
    const clicks = [first, ...Array.from({ length: 5 }, () => jobs.runNow({ sourceId: 'src_A', orgId: 'org_A', full: true }))];
    await vi.waitFor(() => expect(requests()).toBeGreaterThanOrEqual(6), { timeout: 20_000 });

    // Org B's Sync now runs and answers while A's sync is still held.
    const b = jobs.runNow({ sourceId: 'src_B', orgId: 'org_B' });
    await vi.waitFor(() => expect(started.map((j) => j.sourceId)).toContain('src_B'), { timeout: 20_000 });
    expect(await b).toBe('synced src_B');
    expect(started.filter((j) => j.sourceId === 'src_A')).toHaveLength(1);

    release();
    expect(await Promise.all(clicks)).toEqual(Array(6).fill('synced src_A'));
    // The first sync, and one more for the five clicks made while it ran: a full pass, as they asked.
    const runsOfA = started.filter((j) => j.sourceId === 'src_A');
    expect(runsOfA).toHaveLength(2);
    expect(runsOfA[1]!.full).toBe(true);
  }, 60_000);

  it("an organization's syncs hold at most 2 of an instance's 4 slots: another organization's sync starts while they are held", async () => {
    const { jobs, started, release } = await runner((id) => id.startsWith('src_A'));
    const a = ['src_A1', 'src_A2', 'src_A3', 'src_A4'].map((sourceId) => jobs.runNow({ sourceId, orgId: 'org_A' }));
    await vi.waitFor(() => expect(started.length).toBeGreaterThanOrEqual(2), { timeout: 20_000 });
    const b = jobs.runNow({ sourceId: 'src_B', orgId: 'org_B' });
    await vi.waitFor(() => expect(started.map((j) => j.sourceId)).toContain('src_B'), { timeout: 20_000 });
    expect(await b).toBe('synced src_B');
    expect(started.filter((j) => j.sourceId.startsWith('src_A'))).toHaveLength(2);
    release();
    expect(await Promise.all(a)).toEqual(['synced src_A1', 'synced src_A2', 'synced src_A3', 'synced src_A4']);
  }, 60_000);
});
