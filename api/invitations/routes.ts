/**
 * The developer API's invitations (CONTRACT §14), after apiAccess (key, plan,
 * the organization's rate limit: every call counts) and the key's permission
 * `invitations:write`:
 *   POST /api/v1/invitations   one invitation, or {"data":[…]} of up to 100 → 202
 *   GET  /api/v1/invitations   ?state=&limit=&offset= → one page, newest first
 * Any other method there is 405 with Allow.
 */
import { METHODS } from 'node:http';
import type { Context, Middleware } from 'koa';
import type Router from '@koa/router';
import { readBody } from '../admin/body.ts';
import { requireInvitationsWrite } from '../auth/permissions.ts';
import { invalidParameters, methodNotAllowed } from '../errors.ts';
import { validQuery } from '../openapi/params.ts';
import type { AuthState } from '../auth/authenticate.ts';
import type { InvitationState } from '../store/invitation-types.ts';
import type { InvitationsService } from './service.ts';

const OTHER_METHODS = METHODS.filter((m) => m !== 'GET' && m !== 'HEAD' && m !== 'POST');

/**
 * The body's bound: 100 invitations with every field at its longest, as any
 * JSON encoder may write them. An item is at most ~4.2 KB when non-ASCII is
 * escaped (`\uXXXX`, Python's default): the email's 254 characters, the
 * name's and the orderRef's 100 code points as surrogate pairs, the
 * productId's 100, the keys; ~420 KB for 100. 512 KiB leaves a margin for
 * whitespace and stays bounded (the admin API's 64 KiB did not fit them).
 */
export const INVITATIONS_BODY_LIMIT = 512 * 1024;

/** The JSON body, or a 400 invalid_parameter naming `body` (never a 500, never the text echoed). */
async function jsonBody(ctx: Context): Promise<unknown> {
  if (!/^application\/json\b/i.test(ctx.get('content-type'))) throw invalidParameters([{ parameter: 'body', message: 'must be JSON, sent with Content-Type: application/json' }], 'The body must be JSON.');
  const bytes = await readBody(ctx, INVITATIONS_BODY_LIMIT);
  try {
    return JSON.parse(bytes.toString('utf8')) as unknown;
  } catch {
    throw invalidParameters([{ parameter: 'body', message: 'is not valid JSON' }], 'The body is not valid JSON.');
  }
}

export function registerInvitationRoutes(args: { router: Router; apiPipeline: Middleware[]; invitations: InvitationsService }): void {
  const { router, apiPipeline, invitations } = args;
  const permitted = requireInvitationsWrite();

  router.post('/api/v1/invitations', ...apiPipeline, permitted, async function createInvitations(ctx: Context): Promise<void> {
    if (ctx.querystring !== '') throw invalidParameters([{ parameter: ctx.querystring.split(/[=&]/)[0]!.slice(0, 100) || 'query', message: 'unknown parameter: this operation takes a JSON body, no query parameters' }]);
    const body = await jsonBody(ctx);
    const { org } = ctx.state.auth as AuthState;
    ctx.status = 202;
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { data: await invitations.createFromApi(org.id, body) };
  });

  router.get('/api/v1/invitations', ...apiPipeline, permitted, async function listInvitations(ctx: Context): Promise<void> {
    const params = validQuery('listInvitations', ctx.querystring);
    const limit = params.limit ?? 20;
    const offset = params.offset ?? 0;
    const { org } = ctx.state.auth as AuthState;
    const page = await invitations.list(org.id, { ...(params.state !== undefined && { state: params.state as InvitationState }), limit, offset });
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { data: page.data, pagination: { total: page.total, limit, offset, hasMore: offset + limit < page.total } };
  });

  router.register('/api/v1/invitations', OTHER_METHODS, [
    async function notAllowed(): Promise<void> {
      throw methodNotAllowed(['GET', 'HEAD', 'POST']);
    },
  ]);
}
