/**
 * The request bodies of the sources endpoints, read once for the admin API
 * (api/admin/sources.ts, behind the CLI) and the dashboard
 * (api/dashboard/routes/sources.ts). Both answer a malformed body with the
 * same 400 envelope (`bad_request`, one detail naming the parameter); only
 * the wording about credentials differs (where the caller gets them: the
 * CLI's stdin or the dashboard's form), so the caller says it. What a value
 * means (platform, account id, interval, credential fields) is checked
 * further in, by SourcesService.
 */
import type { Context } from 'koa';
import { readJson } from '../admin/body.ts';
import { badRequest } from '../errors.ts';

export type Body = Record<string, unknown>;

/** The JSON body, which must be an object (`null`, an array or a number is a 400, never a 500). */
export async function readBody(ctx: Context): Promise<Body> {
  const body = await readJson(ctx);
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw badRequest('The body must be a JSON object.', [{ parameter: 'body', message: 'must be a JSON object' }]);
  return body as Body;
}

/** A string field; an optional one may be absent or empty (then undefined). */
export function stringField(body: Body, name: string, required: true): string;
export function stringField(body: Body, name: string, required: false): string | undefined;
export function stringField(body: Body, name: string, required: boolean): string | undefined {
  const value = body[name];
  if (!required && (value === undefined || value === null || value === '')) return undefined;
  if (typeof value !== 'string') throw badRequest(`${name} must be a string`, [{ parameter: name, message: required && value === undefined ? 'is required' : 'must be a string' }]);
  return value;
}

/** `credentials`: an object of the platform's fields (checked by the platform's connector). */
export function credentialsField(body: Body, where: string): unknown {
  const credentials = body.credentials;
  if (credentials === null || typeof credentials !== 'object' || Array.isArray(credentials)) {
    throw badRequest(`credentials must be ${where}`, [{ parameter: 'credentials', message: 'must be an object' }]);
  }
  return credentials;
}

export interface AddSourceBody {
  platform: string;
  account: string;
  name: string | undefined;
  /** Checked by the service (parseEvery): `60m`, `2h`, `1d` or minutes. */
  every: unknown;
  credentials: unknown;
}

/** A new source: platform, account, optional name and interval, credentials. */
export function addSourceBody(body: Body, credentialsWhere: string): AddSourceBody {
  return {
    platform: stringField(body, 'platform', true),
    account: stringField(body, 'account', true),
    name: stringField(body, 'name', false),
    every: body.every,
    credentials: credentialsField(body, credentialsWhere),
  };
}

/** `?full=true|false` of a sync (absent: false). */
export function fullFlag(value: unknown): boolean {
  if (value === undefined) return false;
  if (value !== 'true' && value !== 'false') throw badRequest('full must be true or false', [{ parameter: 'full', message: 'must be true or false' }]);
  return value === 'true';
}
