/** Graceful shutdown in process: in-flight requests finish, keep-alive connections are closed promptly. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EmbeddedStore } from './store/embedded/store.ts';
import type { Store } from './store/types.ts';
import { startTestService } from './test/harness.ts';

describe('graceful shutdown', () => {
  it('finishes the in-flight request, says Connection: close, and does not wait for keep-alive timeouts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'shutdown-'));
    const real = await EmbeddedStore.open(dir);
    let entered!: () => void;
    const inside = new Promise<void>((r) => (entered = r));
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let gated = false;
    const store: Store = {
      kind: real.kind,
      orgs: real.orgs,
      keys: real.keys,
      widgets: real.widgets,
      reviews: {
        ...real.reviews,
        stats: async (q) => {
          if (gated) {
            entered();
            await gate;
          }
          return real.reviews.stats(q);
        },
      },
      ping: () => real.ping(),
      close: () => real.close(),
    };
    const s = await startTestService({ store, redis: false });
    try {
      const { key } = await s.org('growth');
      // Warm a keep-alive connection, then make the next request hang inside the handler.
      expect((await s.get('/api/v1/reviews/stats', { key })).status).toBe(200);
      gated = true;
      const pending = s.get('/api/v1/reviews/stats', { key });
      await inside;
      const closing = s.service.close();
      const started = Date.now();
      await new Promise((r) => setTimeout(r, 200));
      release();
      const res = await pending;
      expect(res.status).toBe(200);
      expect(res.headers.connection).toBe('close');
      await closing;
      expect(Date.now() - started).toBeLessThan(2000);
    } finally {
      await s.close().catch(() => undefined);
      await real.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
