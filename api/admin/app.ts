/**
 * The admin API (the dashboard's back end, CONTRACT §2): loopback only, bearer
 * ADMIN_TOKEN. The CLI (cli.ts) is a client of it. Also serves /metrics.
 */
import Koa, { type Context, type Next } from 'koa';
import Router from '@koa/router';
import type { Config } from '../config.ts';
import { ApiError, badRequest, notFound } from '../errors.ts';
import type { Logger } from '../logger.ts';
import { errorHandler } from '../middleware/error-handler.ts';
import { requestId } from '../middleware/request-id.ts';
import type { Metrics } from '../ops/metrics.ts';
import type { Store } from '../store/types.ts';
import { drainBody, readJson } from './body.ts';
import { auditedImport } from './audited-import.ts';
import { IMPORT_FORMATS, type ImportFormat } from './import.ts';
import { enrichStored } from './enrich.ts';
import { createKey, keyListItem, parseKeyCreate } from './keys.ts';
import { createOrganization, parseOrgCreate, parseOrgUpdate, requireOrg } from './orgs.ts';
import { tokenMatches } from './token.ts';
import { checkWidgetProduct, createWidget, parseWidgetCreate, parseWidgetUpdate } from './widgets.ts';
import { lintWidget } from '../widgets/lint.ts';
import { memberOf, type SessionStore } from '../store/people-types.ts';
import { audit, OPERATOR } from '../dashboard/audit.ts';
import { addMembership, createUser, parseUserCreate, removeUser, userListItem, userWithMemberships } from './users.ts';
import type { SourcesService } from '../sources/service.ts';
import { sourceRoutes } from './sources.ts';
import type { WebhooksService } from '../webhooks/service.ts';
import { webhookRoutes } from './webhooks.ts';
import type { ProductsService } from '../products/service.ts';
import { productRoutes } from './products.ts';
import type { RepliesService } from '../replies/service.ts';
import { replyRoutes } from './replies.ts';
import { collectRoutes } from './collect.ts';
import type { CollectService } from '../collect/service.ts';
import type { InvitationsService } from '../invitations/service.ts';
import type { InvitationSender } from '../invitations/sender.ts';
import { InvitationRetention } from '../invitations/retention.ts';
import { invitationRoutes } from './invitations.ts';

export interface AdminDeps {
  store: Store;
  logger: Logger;
  metrics: Metrics;
  adminToken: string;
  config: Config;
  /** Where sessions live: removing a user ends theirs at once. */
  sessions: SessionStore;
  /** Review sources (CONTRACT §11); absent in tests that do not need them. */
  sources?: SourcesService;
  /** Webhook endpoints (CONTRACT §12); absent in tests that do not need them. */
  webhooks?: WebhooksService;
  /** The product catalog (CONTRACT §13); absent in tests that do not need it. */
  products?: ProductsService;
  /** Replies to reviews (CONTRACT §15); absent in tests that do not need them. */
  replies?: RepliesService;
  /** The review page (CONTRACT §13); absent in tests that do not need it. */
  collect?: CollectService;
  /** Review invitations (CONTRACT §14); absent in tests that do not need them. */
  invitations?: InvitationsService;
  /** The invitation sender (SMTP_URL set); absent: `invitations run-due` says mail is not configured. */
  invitationSender?: InvitationSender | null;
  /** Invitation retention: `invitations purge` runs it now. */
  invitationRetention?: InvitationRetention | null;
}

function requireAdmin(token: string) {
  return async function requireAdmin(ctx: Context, next: Next): Promise<void> {
    const header = ctx.get('authorization');
    const presented = /^Bearer (.+)$/.exec(header)?.[1];
    if (!presented || !tokenMatches(presented, token)) {
      throw new ApiError(401, 'unauthorized', 'Invalid or missing admin token.', [], { 'WWW-Authenticate': 'Bearer' });
    }
    await next();
  };
}

export function createAdminApp(deps: AdminDeps): Koa {
  const { store, logger, metrics, adminToken, sessions } = deps;
  const koa = new Koa();
  koa.silent = true;
  const router = new Router({ prefix: '/admin' });

  router.get('/orgs', async (ctx) => {
    ctx.body = { data: await store.orgs.list() };
  });
  router.post('/orgs', async (ctx) => {
    const org = await createOrganization(store, parseOrgCreate(await readJson(ctx)));
    ctx.status = 201;
    ctx.body = org;
  });
  router.get('/orgs/:id', async (ctx) => {
    ctx.body = await requireOrg(store, ctx.params.id!);
  });
  router.patch('/orgs/:id', async (ctx) => {
    const patch = parseOrgUpdate(await readJson(ctx));
    const before = await requireOrg(store, ctx.params.id!);
    const after = await store.orgs.update(ctx.params.id!, patch);
    // Operator changes that decide what an organization gets are audited (CONTRACT §6): its plan, its rate, its language.
    if (after && (after.plan !== before.plan || after.rateLimit !== before.rateLimit)) {
      await audit(store, before.id, OPERATOR, 'org.plan_changed', { id: before.id, label: before.name }, {
        from: `${before.plan}${before.rateLimit === null ? '' : ` (${before.rateLimit}/min)`}`,
        to: `${after.plan}${after.rateLimit === null ? '' : ` (${after.rateLimit}/min)`}`,
      });
    }
    if (after && after.language !== before.language) {
      await audit(store, before.id, OPERATOR, 'org.language_changed', { id: before.id, label: before.name }, { from: before.language, to: after.language });
    }
    ctx.body = after;
  });

  router.post('/keys', async (ctx) => {
    const input = parseKeyCreate(await readJson(ctx));
    await requireOrg(store, input.orgId);
    ctx.status = 201;
    const created = await createKey(store, input);
    await audit(store, input.orgId, OPERATOR, 'key.created', { id: created.id, label: `${created.name} (${created.prefix}…)` }, { permissions: created.permissions.join(', ') });
    ctx.body = created;
  });
  router.get('/keys', async (ctx) => {
    const orgId = ctx.query.orgId;
    if (typeof orgId !== 'string') throw badRequest('Give the organization: ?orgId=…', [{ parameter: 'orgId', message: 'is required' }]);
    await requireOrg(store, orgId);
    const now = new Date();
    ctx.body = { data: (await store.keys.listByOrg(orgId)).map((k) => keyListItem(k, now)) };
  });
  router.post('/keys/:id/revoke', async (ctx) => {
    const before = await store.keys.get(ctx.params.id!);
    const key = await store.keys.revoke(ctx.params.id!, new Date());
    if (!key) throw notFound(`Key ${JSON.stringify(ctx.params.id!.slice(0, 64))}`);
    if (before && before.revokedAt === null) await audit(store, key.orgId, OPERATOR, 'key.revoked', { id: key.id, label: `${key.name} (${key.prefix}…)` });
    ctx.body = { id: key.id, state: 'revoked' };
  });

  router.post('/users', async (ctx) => {
    const input = parseUserCreate(await readJson(ctx));
    await requireOrg(store, input.orgId);
    // One account per email: an email that has one gets a membership here, under its existing id
    // (its password stays its own: one given here would be someone else's choice).
    const existing = await store.people.users.findByEmail(input.email);
    // (Already a member here is told as such, below.)
    if (existing && !input.existingAccount && !existing.memberships.some((m) => m.orgId === input.orgId)) {
      const n = existing.memberships.length;
      throw new ApiError(
        409,
        'conflict',
        `This email has an account already, a member of ${n} organization${n === 1 ? '' : 's'}: adding it gives this role to whoever holds its password. Invite the address from the dashboard instead (the person accepts by signing in), or, knowing who holds it, add the existing account on purpose (existingAccount: true; CLI --existing-account).`,
        [{ parameter: 'existingAccount', message: 'must be true to add an account that exists' }],
      );
    }
    if (existing && input.password !== null) {
      throw new ApiError(409, 'conflict', 'This email has an account already: it keeps its own password. Leave the password out to add the membership.', [{ parameter: 'password', message: 'is not taken for an existing account' }]);
    }
    const { user, password } = existing ? { user: (await addMembership(store, existing, input.orgId, input.role))!, password: null } : await createUser(store, input);
    if (!user) throw notFound('User');
    await audit(store, user.orgId, OPERATOR, 'member.created', { id: user.id, label: user.email }, { role: user.role });
    ctx.status = 201;
    // `password` only when generated: the one time it is shown.
    ctx.body = { ...userWithMemberships(user, await store.people.users.get(user.id)), ...(password !== null && { password }) };
  });
  router.get('/users', async (ctx) => {
    const orgId = ctx.query.orgId;
    if (typeof orgId !== 'string') throw badRequest('Give the organization: ?orgId=…', [{ parameter: 'orgId', message: 'is required' }]);
    await requireOrg(store, orgId);
    ctx.body = { data: (await store.people.users.listByOrg(orgId)).map(userListItem) };
  });
  // Without ?orgId: the user's only membership (and so the account); with it: that organization's membership alone.
  router.delete('/users/:id', async (ctx) => {
    const account = await store.people.users.get(ctx.params.id!);
    if (!account) throw notFound(`User ${JSON.stringify(ctx.params.id!.slice(0, 64))}`);
    const orgId = ctx.query.orgId;
    if (orgId !== undefined && typeof orgId !== 'string') throw badRequest('Give one organization: ?orgId=…', [{ parameter: 'orgId', message: 'must be given once' }]);
    if (orgId === undefined && account.memberships.length > 1) {
      throw new ApiError(409, 'conflict', `This user belongs to ${account.memberships.length} organizations: say which membership to remove (--org, ?orgId=).`, [{ parameter: 'orgId', message: 'is required for a user of several organizations' }]);
    }
    const user = memberOf(account, orgId ?? account.memberships[0]!.orgId);
    if (!user) throw notFound(`Membership of ${JSON.stringify(ctx.params.id!.slice(0, 64))} in ${JSON.stringify(String(orgId).slice(0, 64))}`);
    await removeUser(store, sessions, user);
    await audit(store, user.orgId, OPERATOR, 'member.removed', { id: user.id, label: user.email }, { role: user.role });
    ctx.body = orgId === undefined ? { id: user.id, removed: true } : { id: user.id, orgId: user.orgId, removed: true };
  });
  router.get('/orgs/:id/audit', async (ctx) => {
    const org = await requireOrg(store, ctx.params.id!);
    ctx.body = { data: await store.people.audit.listByOrg(org.id, 1000) };
  });

  router.get('/widgets', async (ctx) => {
    const orgId = ctx.query.orgId;
    if (typeof orgId !== 'string') throw badRequest('Give the organization: ?orgId=…', [{ parameter: 'orgId', message: 'is required' }]);
    await requireOrg(store, orgId);
    ctx.body = { data: await store.widgets.listByOrg(orgId) };
  });
  router.post('/widgets', async (ctx) => {
    const input = parseWidgetCreate(await readJson(ctx));
    await requireOrg(store, input.orgId);
    ctx.status = 201;
    ctx.body = await createWidget(store, input);
  });
  router.get('/widgets/:id', async (ctx) => {
    const widget = await store.widgets.get(ctx.params.id!);
    if (!widget) throw notFound('Widget');
    ctx.body = widget;
  });
  router.patch('/widgets/:id', async (ctx) => {
    const widget = await store.widgets.get(ctx.params.id!);
    if (!widget) throw notFound('Widget');
    const patch = parseWidgetUpdate(await readJson(ctx));
    await checkWidgetProduct(store, widget.orgId, patch.options);
    const updated = await store.widgets.update(widget.id, patch);
    await audit(store, widget.orgId, OPERATOR, 'widget.changed', { id: widget.id, label: widget.name });
    ctx.body = updated;
  });
  router.get('/widgets/:id/lint', async (ctx) => {
    const widget = await store.widgets.get(ctx.params.id!);
    if (!widget) throw notFound('Widget');
    ctx.body = { data: await lintWidget(store, widget) };
  });

  router.post('/orgs/:id/reviews', async (ctx) => {
    const org = await requireOrg(store, ctx.params.id!);
    const format = String(ctx.query.format ?? '');
    if (!(IMPORT_FORMATS as readonly string[]).includes(format)) {
      throw badRequest(`format must be one of ${IMPORT_FORMATS.join(', ')}`, [{ parameter: 'format', message: 'unknown format' }]);
    }
    // A parser that stops early must not destroy the request: the summary saying why has to arrive.
    ctx.body = await auditedImport(store, org, OPERATOR, ctx.req.iterator({ destroyOnReturn: false }), format as ImportFormat, ctx.state.log as Logger);
    await drainBody(ctx.req);
  });

  router.post('/orgs/:id/reviews/enrich', async (ctx) => {
    const org = await requireOrg(store, ctx.params.id!);
    const force = ctx.query.force;
    if (force !== undefined && force !== 'true' && force !== 'false') {
      throw badRequest('force must be true or false', [{ parameter: 'force', message: 'must be true or false' }]);
    }
    ctx.body = await enrichStored(store, org, force === 'true');
  });

  if (deps.sources) sourceRoutes(router, store, deps.sources);
  if (deps.webhooks) webhookRoutes(router, store, deps.webhooks);
  if (deps.products) productRoutes(router, store, deps.products);
  if (deps.replies) replyRoutes(router, store, deps.replies);
  if (deps.collect) collectRoutes(router, store, deps.collect);
  if (deps.invitations) invitationRoutes(router, store, deps.invitations, deps.invitationSender ?? null, deps.invitationRetention ?? new InvitationRetention({ store, logger }));

  koa.use(errorHandler(logger));
  koa.use(requestId(logger));
  koa.use(requireAdmin(adminToken));
  koa.use(async function metricsEndpoint(ctx, next) {
    if (ctx.path !== '/metrics') return next();
    ctx.type = metrics.registry.contentType;
    ctx.body = await metrics.registry.metrics();
  });
  koa.use(router.routes());
  koa.use(router.allowedMethods({ throw: true }));
  return koa;
}
