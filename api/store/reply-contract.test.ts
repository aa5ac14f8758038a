/**
 * ReplyStore (reply-types.ts) on both stores: insert or replace by review,
 * `update` only from the states expected (a cancel and the job never both
 * win), lists by state, the pending replies resumed at start-up, the
 * organization's delay (default 5), and on the embedded store the records
 * after a restart and a compaction.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { storeSubjects } from '../sources/testing/subjects.ts';
import { EmbeddedStore } from './embedded/store.ts';
import { newId } from './ids.ts';
import type { ReplyRecord, ReplyTemplate } from './reply-types.ts';

function template(orgId: string, id: string, overrides: Partial<ReplyTemplate> = {}): ReplyTemplate {
  const at = '2026-11-28T10:00:00.000Z';
  return { orgId, id, name: `Template ${id}`, language: 'en', ratings: [4, 5], text: 'Thank you, {author}!', createdAt: at, updatedAt: at, ...overrides };
}

function record(orgId: string, reviewId: string, overrides: Partial<ReplyRecord> = {}): ReplyRecord {
  const at = '2026-11-28T10:00:00.000Z';
  return {
    orgId, reviewId, platform: 'GOOGLE', sourceId: 'src_1', text: 'Thanks', state: 'draft', scheduledAt: null, publishedAt: null, date: null, error: null,
    author: { userId: 'usr_1', email: 'a@shop.test' }, approvedBy: null, retryAt: null, attempts: 0, createdAt: at, updatedAt: at, ...overrides,
  };
}

for (const subject of storeSubjects('reply-store')) {
  const suite = subject.target && !subject.target.url ? describe.skip : describe;
  suite(`ReplyStore: ${subject.name}`, () => {
    it('keeps one reply per review, writes an update only from the states expected, lists and resumes', async () => {
      const { store, cleanup } = await subject.open();
      try {
        const org = newId('org');
        await store.replies.put(record(org, 'rev_a'));
        await store.replies.put(record(org, 'rev_a', { text: 'Thanks again', updatedAt: '2026-11-28T10:01:00.000Z' }));
        await store.replies.put(record(org, 'rev_b', { state: 'scheduled', scheduledAt: '2026-11-28T10:05:00.000Z', updatedAt: '2026-11-28T10:02:00.000Z' }));
        await store.replies.put(record(newId('org'), 'rev_c', { state: 'publishing', attempts: 1 }));
        expect((await store.replies.get(org, 'rev_a'))?.text).toBe('Thanks again');
        expect(await store.replies.get(org, 'rev_none')).toBeNull();
        // The job takes rev_b; a cancel after it finds it no longer scheduled: nothing written.
        expect(await store.replies.update(org, 'rev_b', ['scheduled'], { state: 'publishing', attempts: 1 })).toMatchObject({ state: 'publishing', attempts: 1, text: 'Thanks' });
        expect(await store.replies.update(org, 'rev_b', ['scheduled'], { state: 'draft' })).toBeNull();
        expect((await store.replies.get(org, 'rev_b'))?.state).toBe('publishing');
        expect(await store.replies.update(org, 'rev_none', ['draft'], { state: 'scheduled' })).toBeNull();
        expect((await store.replies.list(org)).map((r) => r.reviewId)).toEqual(['rev_b', 'rev_a']);
        expect((await store.replies.list(org, 'draft')).map((r) => r.reviewId)).toEqual(['rev_a']);
        const pending = (await store.replies.pending()).map((r) => r.reviewId).sort();
        expect(pending).toEqual(expect.arrayContaining(['rev_b', 'rev_c']));
        expect(pending).not.toContain('rev_a');
        expect(await store.replies.settings(org)).toEqual({ orgId: org, delayMinutes: 5 });
        await store.replies.putSettings({ orgId: org, delayMinutes: 0 });
        expect(await store.replies.settings(org)).toEqual({ orgId: org, delayMinutes: 0 });
        // The automatic-reply rule is kept beside the delay.
        await store.replies.putSettings({ orgId: org, delayMinutes: 0, autoReply: { enabled: true, minRating: 4, templateId: 'tpl_1' } });
        expect(await store.replies.settings(org)).toEqual({ orgId: org, delayMinutes: 0, autoReply: { enabled: true, minRating: 4, templateId: 'tpl_1' } });
      } finally {
        await cleanup();
      }
    });

    it('keeps each organization\'s templates by name, never more than the cap, replaces and removes only what exists', async () => {
      const { store, cleanup } = await subject.open();
      try {
        const org = newId('org');
        const other = newId('org');
        expect(await store.replies.createTemplate(template(org, 'tpl_b', { name: 'Bravo' }), 2)).toBe(true);
        expect(await store.replies.createTemplate(template(org, 'tpl_a', { name: 'Alpha' }), 2)).toBe(true);
        // The cap: a third is refused and nothing is written; another organization has its own.
        expect(await store.replies.createTemplate(template(org, 'tpl_c', { name: 'Charlie' }), 2)).toBe(false);
        expect(await store.replies.createTemplate(template(other, 'tpl_c'), 2)).toBe(true);
        expect((await store.replies.templates(org)).map((t) => t.name)).toEqual(['Alpha', 'Bravo']);
        expect(await store.replies.getTemplate(org, 'tpl_c')).toBeNull();
        expect(await store.replies.getTemplate(other, 'tpl_a')).toBeNull();
        expect(await store.replies.putTemplate(template(org, 'tpl_a', { name: 'Alpha', ratings: [1, 2], text: 'Sorry, {author}.' }))).toBe(true);
        expect(await store.replies.getTemplate(org, 'tpl_a')).toMatchObject({ ratings: [1, 2], text: 'Sorry, {author}.' });
        expect(await store.replies.putTemplate(template(org, 'tpl_none'))).toBe(false);
        expect(await store.replies.getTemplate(org, 'tpl_none')).toBeNull();
        expect(await store.replies.deleteTemplate(org, 'tpl_b')).toBe(true);
        expect(await store.replies.deleteTemplate(org, 'tpl_b')).toBe(false);
        expect((await store.replies.templates(org)).map((t) => t.id)).toEqual(['tpl_a']);
        expect((await store.replies.templates(other)).map((t) => t.id)).toEqual(['tpl_c']);
      } finally {
        await cleanup();
      }
    });
  });
}

describe('ReplyStore: embedded, after a restart', () => {
  it('replays the replies and settings from the log', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'reply-store-restart-'));
    try {
      const first = await EmbeddedStore.open(dir);
      await first.replies.put(record('org_1', 'rev_a', { state: 'scheduled' }));
      await first.replies.update('org_1', 'rev_a', ['scheduled'], { state: 'published', date: '2026-11-28T10:03:00.000Z' });
      await first.replies.putSettings({ orgId: 'org_1', delayMinutes: 12 });
      await first.replies.createTemplate(template('org_1', 'tpl_kept'), 100);
      await first.replies.createTemplate(template('org_1', 'tpl_gone'), 100);
      await first.replies.deleteTemplate('org_1', 'tpl_gone');
      await first.close();
      const again = await EmbeddedStore.open(dir);
      expect(await again.replies.get('org_1', 'rev_a')).toMatchObject({ state: 'published', date: '2026-11-28T10:03:00.000Z' });
      expect(await again.replies.settings('org_1')).toEqual({ orgId: 'org_1', delayMinutes: 12 });
      expect((await again.replies.templates('org_1')).map((t) => t.id)).toEqual(['tpl_kept']);
      await again.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
