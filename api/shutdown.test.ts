/** Graceful shutdown in process: in-flight requests finish, keep-alive connections are closed promptly. */
import { describe, expect, it } from 'vitest';
import { openGatedStore } from './test/gated-store.ts';
import { startTestService } from './test/harness.ts';

describe('graceful shutdown', () => {
  it('finishes the in-flight request, says Connection: close, and does not wait for keep-alive timeouts', async () => {
    const gated = await openGatedStore();
    const s = await startTestService({ store: gated.store, redis: false });
    try {
      const { key } = await s.org('growth');
      // Warm a keep-alive connection, then make the next request hang inside the handler.
      expect((await s.get('/api/v1/reviews/stats', { key })).status).toBe(200);
      gated.arm();
      const pending = s.get('/api/v1/reviews/stats', { key });
      await gated.inside;
      const closing = s.service.close();
      const started = Date.now();
      await new Promise((r) => setTimeout(r, 200));
      gated.release();
      const res = await pending;
      expect(res.status).toBe(200);
      expect(res.headers.connection).toBe('close');
      await closing;
      expect(Date.now() - started).toBeLessThan(2000);
    } finally {
      await s.close().catch(() => undefined);
      await gated.dispose();
    }
  });
});
