/**
 * The dashboard's JSON routes for replies (CONTRACT §15), for the Reviews
 * page's composer: draft (anyone signed in), publish, approve, cancel and
 * delete (Owner, Admin: the route table says so, and the replies service
 * checks it again), edit, the list, and the organization's delay. Every
 * route calls the one service (api/replies/), never the stores.
 */
import type { Context } from 'koa';
import { ApiError } from '../../errors.ts';
import { templateView } from '../../replies/templates.ts';
import { parseReplyState, replyView, type RepliesService, type ReplyCaller } from '../../replies/service.ts';
import { readJson } from '../../admin/body.ts';
import { parseBody } from '../validate.ts';
import { auth } from '../session.ts';
import type { DashboardDeps } from './deps.ts';
import { MAX_REPLY_TEMPLATES } from '../../store/reply-types.ts';

function service(deps: DashboardDeps): RepliesService {
  if (!deps.replies) throw new ApiError(503, 'unavailable', 'Replies are not available in this service.');
  return deps.replies;
}

function caller(ctx: Context): { orgId: string; caller: ReplyCaller } {
  const { user, org } = auth(ctx);
  return { orgId: org.id, caller: { actor: { userId: user.id, email: user.email }, role: user.role } };
}

/** GET /replies?state=…: the organization's replies, newest change first, and its delay. */
export function listReplies(deps: DashboardDeps) {
  return async function listReplies(ctx: Context): Promise<void> {
    const { orgId } = caller(ctx);
    const replies = service(deps);
    ctx.body = { data: (await replies.list(orgId, parseReplyState(ctx.query.state))).map(replyView), delayMinutes: await replies.delay(orgId) };
  };
}

/**
 * GET /reviews/{id}/reply: what the composer needs for one review (its reply,
 * or null; the reply the review shows now, `shown`; why its platform takes no reply; what stops a publish now; the
 * platform's limit in bytes of UTF-8; the delay; the organization's name for
 * the preview).
 */
export function aboutReply(deps: DashboardDeps) {
  return async function aboutReply(ctx: Context): Promise<void> {
    const { org } = auth(ctx);
    const about = await service(deps).about(org.id, ctx.params.id!);
    ctx.body = {
      reviewId: about.review.id,
      platform: about.platform,
      organization: org.name,
      reply: about.reply && replyView(about.reply),
      // The reply the review shows now (the platform's as last synced, or ours as posted): the composer says when a publish would replace one written elsewhere.
      shown: about.review.reply && { text: about.review.reply.text, date: about.review.reply.date },
      noReplyApi: about.noReplyApi,
      blocked: about.blocked,
      maxBytes: about.maxBytes,
      delayMinutes: about.delayMinutes,
      templates: about.templates,
      proposal: about.proposal,
    };
  };
}

/** POST /reviews/{id}/reply/draft {text}: anyone signed in; an Owner or Admin approves it. */
export function draftReply(deps: DashboardDeps) {
  return async function draftReply(ctx: Context): Promise<void> {
    const { orgId, caller: who } = caller(ctx);
    const { text } = parseBody<{ text: string }>('ReplyText', await readJson(ctx));
    ctx.body = replyView(await service(deps).draft(who, orgId, ctx.params.id!, text));
  };
}

/** PATCH /reviews/{id}/reply {text}: a draft (anyone) or a reply waiting for its delay (Owner, Admin). */
export function editReply(deps: DashboardDeps) {
  return async function editReply(ctx: Context): Promise<void> {
    const { orgId, caller: who } = caller(ctx);
    const { text } = parseBody<{ text: string }>('ReplyText', await readJson(ctx));
    ctx.body = replyView(await service(deps).edit(who, orgId, ctx.params.id!, text));
  };
}

/** POST /reviews/{id}/reply/publish {text?, now?}: Owner, Admin; posted after the delay (now: at once). */
export function publishReply(deps: DashboardDeps) {
  return async function publishReply(ctx: Context): Promise<void> {
    const { orgId, caller: who } = caller(ctx);
    const body = parseBody<{ text?: string; now?: boolean }>('ReplyPublish', await readJson(ctx));
    ctx.body = replyView(await service(deps).publish(who, orgId, ctx.params.id!, body.text, { now: body.now === true }));
  };
}

/** POST /reviews/{id}/reply/approve {text}: Owner, Admin; the draft as the approver read it (a 409 when it changed since), posted after the delay. */
export function approveReply(deps: DashboardDeps) {
  return async function approveReply(ctx: Context): Promise<void> {
    const { orgId, caller: who } = caller(ctx);
    const { text } = parseBody<{ text: string }>('ReplyApprove', await readJson(ctx));
    ctx.body = replyView(await service(deps).approve(who, orgId, ctx.params.id!, text));
  };
}

/** POST /reviews/{id}/reply/cancel: Owner, Admin; back to draft, nothing posted. */
export function cancelReply(deps: DashboardDeps) {
  return async function cancelReply(ctx: Context): Promise<void> {
    const { orgId, caller: who } = caller(ctx);
    ctx.body = replyView(await service(deps).cancel(who, orgId, ctx.params.id!));
  };
}

/** DELETE /reviews/{id}/reply: Owner, Admin; off the platform and the review (audit-logged). */
export function deleteReply(deps: DashboardDeps) {
  return async function deleteReply(ctx: Context): Promise<void> {
    const { orgId, caller: who } = caller(ctx);
    ctx.body = replyView(await service(deps).remove(who, orgId, ctx.params.id!));
  };
}

/** PATCH /replies/settings {delayMinutes}: Owner, Admin; 0–60 minutes between approval and posting. */
export function replySettings(deps: DashboardDeps) {
  return async function replySettings(ctx: Context): Promise<void> {
    const { orgId, caller: who } = caller(ctx);
    const { delayMinutes } = parseBody<{ delayMinutes: number }>('ReplySettings', await readJson(ctx));
    ctx.body = { delayMinutes: await service(deps).setDelay(who, orgId, delayMinutes) };
  };
}

/** GET /replies/auto-reply: the automatic-reply rule, or {enabled: false, minRating: null, templateId: null} when never set. */
export function readAutoReply(deps: DashboardDeps) {
  return async function readAutoReply(ctx: Context): Promise<void> {
    const { orgId } = caller(ctx);
    ctx.body = (await service(deps).autoReply(orgId)) ?? { enabled: false, minRating: null, templateId: null };
  };
}

/** PATCH /replies/auto-reply {enabled, minRating, templateId}: Owner, Admin (audited); 400 for a bad field or an unsuitable template. */
export function setAutoReply(deps: DashboardDeps) {
  return async function setAutoReply(ctx: Context): Promise<void> {
    const { orgId, caller: who } = caller(ctx);
    ctx.body = await service(deps).setAutoReply(who, orgId, await readJson(ctx));
  };
}

/** GET /replies/templates: the organization's reply templates, by name (everyone signed in reads them). */
export function listTemplates(deps: DashboardDeps) {
  return async function listTemplates(ctx: Context): Promise<void> {
    const { orgId } = caller(ctx);
    ctx.body = { data: (await service(deps).templates.list(orgId)).map(templateView), max: MAX_REPLY_TEMPLATES };
  };
}

/** POST /replies/templates {name, language, ratings, text}: Owner, Admin (audited); 409 past the organization's cap. */
export function createTemplate(deps: DashboardDeps) {
  return async function createTemplate(ctx: Context): Promise<void> {
    const { orgId, caller: who } = caller(ctx);
    ctx.status = 201;
    ctx.body = templateView(await service(deps).templates.create(who, orgId, await readJson(ctx)));
  };
}

/** PATCH /replies/templates/{id} {name, language, ratings, text}: Owner, Admin (audited). */
export function updateTemplate(deps: DashboardDeps) {
  return async function updateTemplate(ctx: Context): Promise<void> {
    const { orgId, caller: who } = caller(ctx);
    ctx.body = templateView(await service(deps).templates.update(who, orgId, ctx.params.id!, await readJson(ctx)));
  };
}

/** DELETE /replies/templates/{id}: Owner, Admin (audited). */
export function removeTemplate(deps: DashboardDeps) {
  return async function removeTemplate(ctx: Context): Promise<void> {
    const { orgId, caller: who } = caller(ctx);
    await service(deps).templates.remove(who, orgId, ctx.params.id!);
    ctx.body = { id: ctx.params.id!, removed: true };
  };
}
