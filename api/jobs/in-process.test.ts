/**
 * The in-process runner's slots are shared across organizations (issue 34,
 * second review L2): one organization's many sources due together never hold
 * every slot while another organization's source waits. The handler holds
 * each run until released: who started is asserted, never how long anything took.
 */
import { describe, expect, it, vi } from 'vitest';
import { createLogger } from '../logger.ts';
import { InProcessJobs, inTurns } from './in-process.ts';
import type { Due, JobResult } from './jobs.ts';

describe('in-process source jobs', () => {
  it('takes the due sources one organization after another', () => {
    const due: Due[] = ['x1', 'x2', 'x3', 'y1', 'x4', 'z1', 'y2'].map((id) => ({ sourceId: id, orgId: `org_${id[0]!}`, nextSyncAt: '' }));
    expect(inTurns(due).map((d) => d.sourceId)).toEqual(['x1', 'y1', 'z1', 'x2', 'y2', 'x3', 'x4']);
  });

  it("another organization's due source gets one of the 4 slots while one organization has 5 due", async () => {
    const started: string[] = [];
    const release: Array<() => void> = [];
    let asked = 0;
    const due: Due[] = [...['x1', 'x2', 'x3', 'x4', 'x5'].map((id) => ({ sourceId: id, orgId: 'org_x', nextSyncAt: '2026-01-01T00:00:00.000Z' })), { sourceId: 'y1', orgId: 'org_y', nextSyncAt: '2026-01-01T00:00:01.000Z' }];
    const jobs = new InProcessJobs<null>({
      logger: createLogger('silent'),
      tickMs: 20,
      concurrency: 4,
      due: async () => (asked++ === 0 ? due : []),
      handler: (job) =>
        new Promise<JobResult<null>>((resolve) => {
          started.push(job.sourceId);
          release.push(() => resolve({ value: null, retry: null }));
        }),
    });
    await jobs.start();
    try {
      await vi.waitFor(() => expect(started).toHaveLength(4), { timeout: 10_000 });
      expect(started).toContain('y1');
      expect(started.filter((id) => id.startsWith('x'))).toHaveLength(3);
    } finally {
      const drain = setInterval(() => release.splice(0).forEach((r) => r()), 5);
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
