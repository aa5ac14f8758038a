/**
 * A real embedded store whose review reads can be held at a gate: tests use it
 * to act (revoke a key, shut down) while a request is inside its handler.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedStore } from '../store/embedded/store.ts';
import type { Store } from '../store/types.ts';

export interface GatedStore {
  store: Store;
  /** From now on, review reads wait at the gate. */
  arm(): void;
  /** Resolves when a request has reached the gate. */
  inside: Promise<void>;
  release(): void;
  dispose(): Promise<void>;
}

export async function openGatedStore(): Promise<GatedStore> {
  const dir = mkdtempSync(join(tmpdir(), 'gated-store-'));
  const real = await EmbeddedStore.open(dir);
  let armed = false;
  const { promise: inside, resolve: entered } = Promise.withResolvers<void>();
  const { promise: gate, resolve: release } = Promise.withResolvers<void>();
  const hold = async (): Promise<void> => {
    if (!armed) return;
    entered();
    await gate;
  };
  const store: Store = {
    kind: real.kind,
    orgs: real.orgs,
    keys: real.keys,
    widgets: real.widgets,
    people: real.people,
    moderation: real.moderation,
    sources: real.sources,
    webhooks: real.webhooks,
    products: real.products,
    replies: real.replies,
    collect: real.collect,
    invitations: real.invitations,
    reviews: {
      ...real.reviews,
      list: async (q) => {
        await hold();
        return real.reviews.list(q);
      },
      stats: async (q) => {
        await hold();
        return real.reviews.stats(q);
      },
    },
    ping: () => real.ping(),
    close: () => real.close(),
  };
  return {
    store,
    arm: () => {
      armed = true;
    },
    inside,
    release,
    async dispose() {
      await real.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
