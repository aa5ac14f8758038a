/** Organizations: creation and plan changes (the dashboard's back end). */
import { notFound } from '../errors.ts';
import { newId } from '../store/ids.ts';
import { PLANS, type Organization, type Plan, type Store } from '../store/types.ts';
import { Checker, objectBody } from './validation.ts';

/** A per-organization override must stay sane: 1 to 10,000,000 requests per minute (load tests included). */
export const MAX_RATE_LIMIT = 10_000_000;

export async function createOrganization(store: Store, input: { name: string; plan: Plan; rateLimit: number | null }): Promise<Organization> {
  const now = new Date().toISOString();
  const org: Organization = { id: newId('org'), name: input.name, plan: input.plan, rateLimit: input.rateLimit, createdAt: now, updatedAt: now };
  await store.orgs.create(org);
  return org;
}

export function parseOrgCreate(raw: unknown): { name: string; plan: Plan; rateLimit: number | null } {
  const body = objectBody(raw);
  const check = new Checker();
  const name = check.string(body, 'name', { required: true, max: 200 });
  const plan = check.oneOf(body, 'plan', PLANS, true);
  const rateLimit = check.integer(body, 'rateLimit', 1, MAX_RATE_LIMIT);
  for (const key of Object.keys(body)) if (!['name', 'plan', 'rateLimit'].includes(key)) check.fail(key, 'is not a known field');
  check.done();
  return { name: name!, plan: plan!, rateLimit: rateLimit ?? null };
}

export function parseOrgUpdate(raw: unknown): Partial<Pick<Organization, 'name' | 'plan' | 'rateLimit'>> {
  const body = objectBody(raw);
  const check = new Checker();
  const name = check.string(body, 'name', { max: 200 });
  const plan = check.oneOf(body, 'plan', PLANS);
  const rateLimit = check.integer(body, 'rateLimit', 1, MAX_RATE_LIMIT);
  for (const key of Object.keys(body)) if (!['name', 'plan', 'rateLimit'].includes(key)) check.fail(key, 'is not a known field');
  check.done();
  return { ...(name !== undefined && { name }), ...(plan !== undefined && { plan }), ...(rateLimit !== undefined && { rateLimit }) };
}

export async function requireOrg(store: Store, id: string): Promise<Organization> {
  const org = typeof id === 'string' ? await store.orgs.get(id) : null;
  if (!org) throw notFound(`Organization ${JSON.stringify(String(id).slice(0, 64))}`);
  return org;
}
