/**
 * The admin API's review invitations (CONTRACT §14), behind the CLI's
 * `invitations` commands: every route calls the one InvitationsService.
 *   POST /admin/orgs/{orgId}/invitations   NDJSON body, one invitation a line → {created, existing, skipped, rejected}
 *   GET  /admin/invitations?orgId=&state=&limit=&offset=   → {data, total}
 *   POST /admin/invitations/{id}/cancel    → {id, state: "cancelled"}
 *   POST /admin/invitations/run-due        JSON {"at"?: ISO date-time} → {sent, reminded, failed, expired, more}
 *        (what is due now, or as if it were `at`: reminders and expiry without waiting a week; for
 *        about a minute at most: `more` true, work is left and the CLI asks again)
 *   POST /admin/invitations/purge          JSON {"orgId"?, "before"?: ISO date-time} → {purged, organizations, endedBefore, more}
 *        (retention now: ended invitations removed; `before` at least 90 days ago; one bounded run,
 *        `more`: the CLI asks again)
 *   POST /admin/orgs/{orgId}/invitations/erase   JSON {"email"} → {erased, unsubscribed}
 */
import type Router from '@koa/router';
import { ApiError, badRequest } from '../errors.ts';
import type { InvitationSender } from '../invitations/sender.ts';
import type { InvitationRetention } from '../invitations/retention.ts';
import { MIN_RETENTION_DAYS } from '../store/invitation-types.ts';
import { InvitationsService } from '../invitations/service.ts';
import type { Store } from '../store/types.ts';
import { drainBody, readJson } from './body.ts';
import { requireOrg } from './orgs.ts';

/** Invitations listed per admin request at most (the CLI pages with --limit/--offset beyond it). */
const MAX_LIST = 10_000;

function count(value: unknown, name: string, fallback: number, max: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || !/^\d{1,9}$/.test(value) || Number(value) > max) throw badRequest(`${name} must be a whole number from 0 to ${max}.`, [{ parameter: name, message: `must be 0 to ${max}` }]);
  return Number(value);
}

/** How long one run-due request sends before it answers (`more`): well inside any HTTP client's patience. */
const RUN_DUE_MS = 60_000;

/** An ISO 8601 date-time with its offset (`2026-12-01T09:00:00Z`). */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

export function invitationRoutes(router: Router, store: Store, invitations: InvitationsService, sender: InvitationSender | null, retention: InvitationRetention): void {
  router.post('/invitations/purge', async (ctx) => {
    const body = ctx.get('content-type') ? await readJson(ctx) : {};
    const { orgId, before } = (body !== null && typeof body === 'object' ? body : {}) as { orgId?: unknown; before?: unknown };
    if (before !== undefined && (typeof before !== 'string' || !DATE_TIME.test(before) || Number.isNaN(Date.parse(before)))) {
      throw badRequest('before must be an ISO 8601 date-time with its offset, e.g. 2026-01-01T00:00:00Z.', [{ parameter: 'before', message: 'must be an ISO 8601 date-time with its offset' }]);
    }
    if (orgId !== undefined && typeof orgId !== 'string') throw badRequest('orgId must be an organization id.', [{ parameter: 'orgId', message: 'must be an organization id' }]);
    const latest = Date.now() - MIN_RETENTION_DAYS * 86_400_000;
    if (before !== undefined && Date.parse(before) > latest) {
      const message = `before must be at least ${MIN_RETENTION_DAYS} days ago (${new Date(latest).toISOString().slice(0, 10)} or earlier): the Collect page's conversion over 90 days counts the invitations sent in those days.`;
      throw badRequest(message, [{ parameter: 'before', message: `must be at least ${MIN_RETENTION_DAYS} days ago` }]);
    }
    const org = orgId === undefined ? null : await requireOrg(store, orgId);
    ctx.body = await retention.purge({ ...(before !== undefined && { endedBefore: new Date(before) }), ...(org && { orgId: org.id }) });
  });

  router.post('/orgs/:id/invitations/erase', async (ctx) => {
    const body = await readJson(ctx);
    const email = body !== null && typeof body === 'object' ? (body as { email?: unknown }).email : undefined;
    ctx.body = await invitations.erase(ctx.params.id!, email);
  });

  router.post('/invitations/run-due', async (ctx) => {
    const body = ctx.get('content-type') ? await readJson(ctx) : {};
    const at = body !== null && typeof body === 'object' ? (body as { at?: unknown }).at : undefined;
    if (at !== undefined && (typeof at !== 'string' || !DATE_TIME.test(at) || Number.isNaN(Date.parse(at)))) {
      throw badRequest('at must be an ISO 8601 date-time with its offset, e.g. 2026-12-01T09:00:00Z.', [{ parameter: 'at', message: 'must be an ISO 8601 date-time with its offset' }]);
    }
    if (!sender) throw new ApiError(409, 'mail_not_configured', 'SMTP_URL is not set: invitations are links for your own mailer (unsent), and nothing is mailed, reminded or expired. Set SMTP_URL to a relay to send them.');
    ctx.body = await sender.runDueFor(at === undefined ? new Date() : new Date(at), RUN_DUE_MS);
  });


  router.post('/orgs/:id/invitations', async (ctx) => {
    const org = await requireOrg(store, ctx.params.id!);
    // A parser that stops early must not destroy the request: the summary has to arrive.
    ctx.body = await invitations.importNdjson(org.id, ctx.req.iterator({ destroyOnReturn: false }));
    await drainBody(ctx.req);
  });

  router.get('/invitations', async (ctx) => {
    if (typeof ctx.query.orgId !== 'string') throw badRequest('Give the organization: ?orgId=…', [{ parameter: 'orgId', message: 'is required' }]);
    const org = await requireOrg(store, ctx.query.orgId);
    const state = InvitationsService.state(ctx.query.state);
    const page = await invitations.list(org.id, { ...(state && { state }), limit: count(ctx.query.limit, 'limit', MAX_LIST, MAX_LIST), offset: count(ctx.query.offset, 'offset', 0, 100_000_000) });
    ctx.body = page;
  });

  router.post('/invitations/:id/cancel', async (ctx) => {
    ctx.body = await invitations.cancel(null, ctx.params.id!);
  });
}
