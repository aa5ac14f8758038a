/**
 * First start on an empty store: a demo organization (Growth plan), a demo key
 * (shown once, here), one demo widget per layout and a few hundred demo reviews.
 */
import { createKey } from '../admin/keys.ts';
import { createOrganization } from '../admin/orgs.ts';
import { createWidget } from '../admin/widgets.ts';
import { createUser } from '../admin/users.ts';
import type { Store, Widget } from '../store/types.ts';
import { WIDGET_LAYOUTS } from '../store/types.ts';
import { demoReviews } from './demo-reviews.ts';
import { DEMO_PRODUCTS, demoDirectReviews } from './demo-direct.ts';
import { DEMO_ORG_NAME } from './constants.ts';

export interface DemoInfo {
  orgId: string;
  /** Only on the start that created it. */
  apiKey: string | null;
  widgets: Widget[];
  /** The demo owner's generated password: only on the start that created it. */
  ownerPassword: string | null;
}

/** The dashboard's demo Owner (CONTRACT §6). */
export const DEMO_OWNER_EMAIL = 'owner@demo.example';

/** Creates the demo Owner when missing (also for a data folder made before the dashboard existed). */
async function ensureDemoOwner(store: Store, orgId: string): Promise<string | null> {
  if (await store.people.users.findByEmail(DEMO_OWNER_EMAIL)) return null;
  const { password } = await createUser(store, { orgId, email: DEMO_OWNER_EMAIL, role: 'owner', password: null });
  return password;
}

export { DEMO_ORG_NAME };

/**
 * The demo's catalog and its DIRECT reviews (CONTRACT §13), also added to a data folder made
 * before products existed: the demo widgets' rich results are built from these.
 */
async function ensureDemoDirect(store: Store, orgId: string, now: Date): Promise<void> {
  if (await store.products.get(orgId, DEMO_PRODUCTS[0]!.id)) return;
  for (const product of DEMO_PRODUCTS) await store.products.upsert({ orgId, ...product }, now);
  await store.reviews.upsert(orgId, demoDirectReviews(now), now);
}

export async function ensureDemo(store: Store, now = new Date()): Promise<DemoInfo> {
  const existing = (await store.orgs.list()).find((o) => o.name === DEMO_ORG_NAME);
  if (existing) {
    const widgets = await store.widgets.listByOrg(existing.id);
    // Creation order (carousel first), whatever order the store lists them in.
    widgets.sort((a, b) => WIDGET_LAYOUTS.indexOf(a.layout) - WIDGET_LAYOUTS.indexOf(b.layout));
    await ensureDemoDirect(store, existing.id, now);
    return { orgId: existing.id, apiKey: null, widgets, ownerPassword: await ensureDemoOwner(store, existing.id) };
  }
  const org = await createOrganization(store, { name: DEMO_ORG_NAME, plan: 'growth', rateLimit: null });
  const key = await createKey(store, { orgId: org.id, name: 'Demo key', expiresAt: null });
  const widgets: Widget[] = [];
  for (const layout of WIDGET_LAYOUTS) {
    widgets.push(
      await createWidget(store, {
        orgId: org.id,
        name: `Demo ${layout}`,
        layout,
        subject: { type: 'Product', name: 'Acme House Blend Coffee', url: null, image: null, brand: DEMO_ORG_NAME },
        options: { maxReviews: layout === 'badge' ? 3 : 12 },
      }),
    );
  }
  const reviews = demoReviews(now, org.language);
  for (let i = 0; i < reviews.length; i += 500) await store.reviews.upsert(org.id, reviews.slice(i, i + 500), now);
  await ensureDemoDirect(store, org.id, now);
  return { orgId: org.id, apiKey: key.key, widgets, ownerPassword: await ensureDemoOwner(store, org.id) };
}
