/**
 * The dashboard's route table, at {PUBLIC_URL}/dashboard (CONTRACT §6).
 * Pages and hashed files, then the JSON API under /dashboard/api, where every
 * request passes the session rules in this order: a state-changing request's
 * whole body is read (so that the checks below see the person as they are
 * when the request is complete, not when its headers arrived) → the session
 * cookie is read (never a Bearer key) → a state-changing request must come
 * from our own Origin → and carry the CSRF token; then each route states its
 * own rule: `signedIn` or `staff` (Owner, Admin), next to the handler. The
 * import upload (`api.upload`) streams its body instead, and checks the
 * uploader again before each batch it writes.
 */
import Router from '@koa/router';
import type { Middleware } from 'koa';
import { dashboardDocument } from './validate.ts';
import { dashboardHeaders, PAGE_PATHS, serveAsset, servePage, servePageNotFound, type DashboardAssets } from './pages.ts';
import { csrfToken, loadSession, requireRole, requireSession, sameOrigin, wholeBodyFirst } from './session.ts';
import { createApiKey, listKeys, revokeApiKey } from './routes/api-keys.ts';
import type { DashboardDeps } from './routes/deps.ts';
import { changeRole, invite, listMembers, removeMember, revokeInvitation } from './routes/members.ts';
import { auditLog, overview } from './routes/overview.ts';
import { createProduct, importProducts, listProducts, removeProduct, updateProduct } from './routes/products.ts';
import { hideReview, listReviews, showReview } from './routes/reviews.ts';
import { aboutReply, approveReply, cancelReply, createTemplate, deleteReply, draftReply, editReply, listReplies, listTemplates, publishReply, readAutoReply, removeTemplate, replySettings, setAutoReply, updateTemplate } from './routes/replies.ts';
import { importStatus, importUpload } from './routes/reviews-import.ts';
import { importInvitations, invitationImportStatus } from './routes/invitations-import.ts';
import { connectGoogle, connectSource, googleCallback, GoogleConnections, googleLocations, GOOGLE_CALLBACK_PATH, keepRemovals, listSources, reconnectSource, releaseRemovals, removeSource, sourcesNeedingAttention, startGoogle, syncSourceNow } from './routes/sources.ts';
import { acceptInvitation, lookupInvitation, showSession, signIn, signOut, switchOrganization } from './routes/session.ts';
import { cancelInvitation, listInvitations, previewInvitationMail, previewInvitationMailHtml, readInvitationSettings, updateInvitationSettings } from './routes/invitations.ts';
import { collectOverview, collectQrCode, pendingReviews, publishPendingReview, rejectPendingReview, rotateCollectLink, updateCollectSettings } from './routes/collect.ts';
import { createWebhook, disableWebhook, enableWebhook, listWebhooks, removeWebhook, replayWebhook, rotateWebhookSecret, showWebhook, testWebhook, webhookDeliveries } from './routes/webhooks.ts';
import { createDashboardWidget, previewWidget, showWidget, updateDashboardWidget, widgetList } from './routes/widgets.ts';

export function dashboardRouter(deps: DashboardDeps & { assets: DashboardAssets }): Router {
  const router = new Router();
  const headers = dashboardHeaders();
  for (const path of PAGE_PATHS) router.get(`/dashboard${path}`, headers, servePage(deps.assets));
  router.get('/dashboard/assets/:file', headers, serveAsset(deps.assets));

  // Every JSON endpoint: headers → whole body → session cookie → same Origin → CSRF token; then its role rule.
  const sessionChecks = [loadSession(deps), sameOrigin(deps.config.publicUrl), csrfToken()];
  const checks = [headers, wholeBodyFirst(), ...sessionChecks];
  const api = {
    /** The streaming upload: its body is the file, read by the import as it goes (reviews-import.ts). */
    upload: (path: string, ...rest: Middleware[]) => router.post(`/dashboard/api${path}`, headers, ...sessionChecks, ...rest),
    get: (path: string, ...rest: Middleware[]) => router.get(`/dashboard/api${path}`, ...checks, ...rest),
    post: (path: string, ...rest: Middleware[]) => router.post(`/dashboard/api${path}`, ...checks, ...rest),
    patch: (path: string, ...rest: Middleware[]) => router.patch(`/dashboard/api${path}`, ...checks, ...rest),
    put: (path: string, ...rest: Middleware[]) => router.put(`/dashboard/api${path}`, ...checks, ...rest),
    delete: (path: string, ...rest: Middleware[]) => router.delete(`/dashboard/api${path}`, ...checks, ...rest),
  };
  const signedIn = requireSession();
  const staff = requireRole('owner', 'admin');

  api.get('/openapi.json', async function openApi(ctx) {
    ctx.body = dashboardDocument;
  });
  api.get('/session', showSession(deps));
  api.post('/sign-in', signIn(deps));
  api.post('/sign-out', signedIn, signOut(deps));
  api.post('/session/organization', signedIn, switchOrganization(deps));
  api.post('/invitations/lookup', lookupInvitation(deps));
  api.post('/invitations/accept', acceptInvitation(deps));

  api.get('/overview', signedIn, overview(deps));
  api.get('/reviews', signedIn, listReviews(deps));
  api.get('/reviews/import', staff, importStatus('reviews'));
  api.upload('/reviews/import', staff, importUpload(deps));
  api.post('/reviews/:id/hide', staff, hideReview(deps));
  api.post('/reviews/:id/show', staff, showReview(deps));
  // Replies (CONTRACT §15): everyone drafts and reads; Owner and Admin publish, approve, cancel, delete and set the delay.
  // An edit is open to everyone here: the service refuses a Member's edit of an approved reply.
  api.get('/replies', signedIn, listReplies(deps));
  api.patch('/replies/settings', staff, replySettings(deps));
  api.get('/replies/auto-reply', signedIn, readAutoReply(deps));
  api.patch('/replies/auto-reply', staff, setAutoReply(deps));
  api.get('/replies/templates', signedIn, listTemplates(deps));
  api.post('/replies/templates', staff, createTemplate(deps));
  api.patch('/replies/templates/:id', staff, updateTemplate(deps));
  api.delete('/replies/templates/:id', staff, removeTemplate(deps));
  api.get('/reviews/:id/reply', signedIn, aboutReply(deps));
  api.post('/reviews/:id/reply/draft', signedIn, draftReply(deps));
  api.patch('/reviews/:id/reply', signedIn, editReply(deps));
  api.post('/reviews/:id/reply/publish', staff, publishReply(deps));
  api.post('/reviews/:id/reply/approve', staff, approveReply(deps));
  api.post('/reviews/:id/reply/cancel', staff, cancelReply(deps));
  api.delete('/reviews/:id/reply', staff, deleteReply(deps));

  // Products: everyone reads the catalog; Owner and Admin add, edit, remove and import.
  api.get('/products', signedIn, listProducts(deps));
  api.get('/products/import', staff, importStatus('products'));
  api.upload('/products/import', staff, importProducts(deps));
  api.post('/products', staff, createProduct(deps));
  api.patch('/products/:id', staff, updateProduct(deps));
  api.delete('/products/:id', staff, removeProduct(deps));

  // Widgets: everyone reads and previews (a preview stores nothing); Owner and Admin save.
  api.get('/widgets', signedIn, widgetList(deps));
  api.post('/widgets/preview', signedIn, previewWidget(deps));
  api.get('/widgets/:id', signedIn, showWidget(deps));
  api.post('/widgets', staff, createDashboardWidget(deps));
  api.patch('/widgets/:id', staff, updateDashboardWidget(deps));

  api.get('/keys', staff, listKeys(deps));
  api.post('/keys', staff, createApiKey(deps));
  api.post('/keys/:id/revoke', staff, revokeApiKey(deps));

  // Review invitations (CONTRACT §14): Owner and Admin upload a CSV of customers to invite (streamed, as imports are).
  api.get('/invitations/import', staff, invitationImportStatus());
  api.upload('/invitations/import', staff, importInvitations(deps));

  api.get('/members', signedIn, listMembers(deps));
  api.post('/invitations', staff, invite(deps));
  api.delete('/invitations/:id', staff, revokeInvitation(deps));
  api.patch('/members/:id', staff, changeRole(deps));
  api.delete('/members/:id', staff, removeMember(deps));

  api.get('/audit', staff, auditLog(deps));

  // The review page (the Collect page, the Pending view): everyone reads; Owner and Admin change and decide.
  api.get('/collect', signedIn, collectOverview(deps));
  api.post('/collect/link/rotate', staff, rotateCollectLink(deps));
  api.patch('/collect/settings', staff, updateCollectSettings(deps));
  api.get('/collect/qr.svg', signedIn, collectQrCode(deps, 'svg'));
  api.get('/collect/qr.png', signedIn, collectQrCode(deps, 'png'));
  api.get('/collect/pending', signedIn, pendingReviews(deps));
  api.post('/collect/reviews/:id/publish', staff, publishPendingReview(deps));
  api.post('/collect/reviews/:id/reject', staff, rejectPendingReview(deps));
  // Review invitations (the Collect page's second half): everyone reads and previews; Owner and Admin cancel and change the settings.
  // (Not the member invitations above: those are /invitations POST and /invitations/:id DELETE.)
  api.get('/invitations', signedIn, listInvitations(deps));
  api.get('/invitations/settings', signedIn, readInvitationSettings(deps));
  api.put('/invitations/settings', staff, updateInvitationSettings(deps));
  api.get('/invitations/preview', signedIn, previewInvitationMail(deps));
  api.get('/invitations/preview.html', signedIn, previewInvitationMailHtml(deps));
  api.post('/invitations/:id/cancel', staff, cancelInvitation(deps));

  // Review sources: everyone sees the list; Owner and Admin connect, sync, reconnect and remove.
  const google = new GoogleConnections();
  api.get('/sources', signedIn, listSources(deps, google));
  api.get('/sources/attention', signedIn, sourcesNeedingAttention(deps));
  api.post('/sources', staff, connectSource(deps));
  api.post('/sources/google/start', staff, startGoogle(deps, google));
  api.get('/sources/google/locations', staff, googleLocations(deps, google));
  api.post('/sources/google', staff, connectGoogle(deps, google));
  api.post('/sources/:id/sync', staff, syncSourceNow(deps));
  api.post('/sources/:id/reconnect', staff, reconnectSource(deps));
  api.post('/sources/:id/release-removals', staff, releaseRemovals(deps));
  api.post('/sources/:id/keep-removals', staff, keepRemovals(deps));
  api.delete('/sources/:id', staff, removeSource(deps));
  // Webhooks: Owner and Admin only, reading included (URLs and delivery logs are integration details).
  api.get('/webhooks', staff, listWebhooks(deps));
  api.post('/webhooks', staff, createWebhook(deps));
  api.get('/webhooks/:id', staff, showWebhook(deps));
  api.get('/webhooks/:id/deliveries', staff, webhookDeliveries(deps));
  api.post('/webhooks/:id/deliveries/:messageId/replay', staff, replayWebhook(deps));
  api.post('/webhooks/:id/test', staff, testWebhook(deps));
  api.post('/webhooks/:id/rotate-secret', staff, rotateWebhookSecret(deps));
  api.post('/webhooks/:id/enable', staff, enableWebhook(deps));
  api.post('/webhooks/:id/disable', staff, disableWebhook(deps));
  api.delete('/webhooks/:id', staff, removeWebhook(deps));
  // Google's redirect back (a top-level GET: the Lax session cookie comes with it); the state is the CSRF check.
  router.get(GOOGLE_CALLBACK_PATH, headers, loadSession(deps), googleCallback(deps, google));
  // Last: an unknown page path (not the API's, not a file's) gets the dashboard's own not-found page.
  router.get('/dashboard/{*rest}', headers, servePageNotFound(deps.assets));
  return router;
}
