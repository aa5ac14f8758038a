import { describe, expect, it } from 'vitest';
import { createLogger } from '../logger.ts';
import type { KeyStore } from '../store/types.ts';
import { LAST_USED_RESOLUTION_MS, LastUsedTracker } from './last-used.ts';

/** A key store that only records the writes of lastUsedAt. */
function recordingKeys(): { keys: KeyStore; writes: [string, number][] } {
  const writes: [string, number][] = [];
  const keys = {
    touch: async (id: string, at: Date) => {
      writes.push([id, at.getTime()]);
    },
  } as unknown as KeyStore;
  return { keys, writes };
}

describe('lastUsedAt', () => {
  const t0 = Date.parse('2026-11-24T12:00:00.000Z');
  const logger = createLogger('silent');

  it('is written at most once a resolution per key, from the first use', async () => {
    const { keys, writes } = recordingKeys();
    const tracker = new LastUsedTracker(keys, logger);
    tracker.touch('key_a', null, t0);
    tracker.touch('key_a', null, t0 + 1);
    tracker.touch('key_a', null, t0 + LAST_USED_RESOLUTION_MS - 1);
    tracker.touch('key_b', null, t0 + 5);
    tracker.touch('key_a', null, t0 + LAST_USED_RESOLUTION_MS);
    await tracker.flush();
    expect(writes).toEqual([
      ['key_a', t0],
      ['key_b', t0 + 5],
      ['key_a', t0 + LAST_USED_RESOLUTION_MS],
    ]);
  });

  it('counts a time another instance stored, seen whenever the stored value changes', async () => {
    const { keys, writes } = recordingKeys();
    const tracker = new LastUsedTracker(keys, logger);
    const stored = new Date(t0 - 1000).toISOString();
    // Stored a second ago: nothing to write yet.
    tracker.touch('key_a', stored, t0);
    tracker.touch('key_a', stored, t0 + LAST_USED_RESOLUTION_MS - 1001);
    expect(writes).toEqual([]);
    // Another instance writes later: that time counts from now on.
    const later = new Date(t0 + 30_000).toISOString();
    tracker.touch('key_a', later, t0 + LAST_USED_RESOLUTION_MS);
    expect(writes).toEqual([]);
    tracker.touch('key_a', later, t0 + 30_000 + LAST_USED_RESOLUTION_MS);
    await tracker.flush();
    expect(writes).toEqual([['key_a', t0 + 30_000 + LAST_USED_RESOLUTION_MS]]);
    // An older stored value (a stale read) never moves the time back.
    tracker.touch('key_a', stored, t0 + 30_000 + LAST_USED_RESOLUTION_MS + 1);
    await tracker.flush();
    expect(writes).toHaveLength(1);
  });
});
