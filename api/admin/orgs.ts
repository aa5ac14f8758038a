/** Organizations: creation and plan changes (the dashboard's back end). */
import { notFound } from '../errors.ts';
import { newId } from '../store/ids.ts';
import { DEFAULT_ORG_LANGUAGE, PLANS, type Organization, type Plan, type Store } from '../store/types.ts';
import { Checker, objectBody } from './validation.ts';

/** A per-organization override must stay sane: 1 to 10,000,000 requests per minute (load tests included). */
export const MAX_RATE_LIMIT = 10_000_000;

/** An organization's default review language: an ISO 639-1 code, stored lower case. */
const LANGUAGE = /^[a-z]{2}$/i;

export interface OrgInput {
  name: string;
  plan: Plan;
  rateLimit: number | null;
  language?: string;
}

export async function createOrganization(store: Store, input: OrgInput): Promise<Organization> {
  const now = new Date().toISOString();
  const org: Organization = {
    id: newId('org'),
    name: input.name,
    plan: input.plan,
    rateLimit: input.rateLimit,
    language: input.language ?? DEFAULT_ORG_LANGUAGE,
    createdAt: now,
    updatedAt: now,
  };
  await store.orgs.create(org);
  return org;
}

function language(body: Record<string, unknown>, check: Checker): string | undefined {
  const value = check.string(body, 'language', { max: 20 });
  if (value === undefined) return undefined;
  if (!LANGUAGE.test(value)) {
    check.fail('language', 'must be a two-letter ISO 639-1 code such as en or de');
    return undefined;
  }
  return value.toLowerCase();
}

const ORG_FIELDS = ['name', 'plan', 'rateLimit', 'language'];

export function parseOrgCreate(raw: unknown): OrgInput {
  const body = objectBody(raw);
  const check = new Checker();
  const name = check.string(body, 'name', { required: true, max: 200 });
  const plan = check.oneOf(body, 'plan', PLANS, true);
  const rateLimit = check.integer(body, 'rateLimit', 1, MAX_RATE_LIMIT);
  const lang = language(body, check);
  for (const key of Object.keys(body)) if (!ORG_FIELDS.includes(key)) check.fail(key, 'is not a known field');
  check.done();
  return { name: name!, plan: plan!, rateLimit: rateLimit ?? null, ...(lang !== undefined && { language: lang }) };
}

export function parseOrgUpdate(raw: unknown): Partial<Pick<Organization, 'name' | 'plan' | 'rateLimit' | 'language'>> {
  const body = objectBody(raw);
  const check = new Checker();
  const name = check.string(body, 'name', { max: 200 });
  const plan = check.oneOf(body, 'plan', PLANS);
  const rateLimit = check.integer(body, 'rateLimit', 1, MAX_RATE_LIMIT);
  const lang = language(body, check);
  for (const key of Object.keys(body)) if (!ORG_FIELDS.includes(key)) check.fail(key, 'is not a known field');
  check.done();
  return {
    ...(name !== undefined && { name }),
    ...(plan !== undefined && { plan }),
    ...(rateLimit !== undefined && { rateLimit }),
    ...(lang !== undefined && { language: lang }),
  };
}

export async function requireOrg(store: Store, id: string): Promise<Organization> {
  const org = typeof id === 'string' ? await store.orgs.get(id) : null;
  if (!org) throw notFound(`Organization ${JSON.stringify(String(id).slice(0, 64))}`);
  return org;
}
