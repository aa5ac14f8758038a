/**
 * The unsubscribe link of invitation mails, `{PUBLIC_URL}/r/u/{token}`
 * (token: unsubscribe-token.ts), HTML only:
 *
 *   GET  /r/u/{token}   a page that asks, with one button; it changes nothing
 *                       (mail scanners and link previews fetch links)
 *   POST /r/u/{token}   with the body `List-Unsubscribe=One-Click`: unsubscribes
 *                       at once, no confirmation page, no redirect, no cookie,
 *                       no CSRF token (RFC 8058 §3: a mailbox provider's
 *                       one-click POST carries nothing else). The page's
 *                       button posts the same body.
 *
 * The token is the authority: it names one organization and one address and
 * cannot be made without SECRETS_KEY, so the POST needs nothing more. Doing it
 * twice is harmless. A token this service did not make is the 404 page; a
 * POST without the one-click body is a 400 page with the button.
 *
 * The store of unsubscribed addresses is not this module's: it is handed
 * `unsubscribes.markUnsubscribed(organizationId, email)` (the invitations
 * store), and organizations' names through `organizations.get(id)` (OrgStore).
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import { INVITATION_MAIL_CATALOGS, INVITATION_MAIL_EN } from '../../widget/src/i18n/invitation-mail.ts';
import { readBody } from '../admin/body.ts';
import { ApiError } from '../errors.ts';
import { messagePage, type RenderedPage } from '../collect/page.ts';
import { chooseLanguage, escapeHtml as e, fill, pageMessages, type PageWords } from '../collect/words.ts';
import type { UnsubscribeTokens } from './unsubscribe-token.ts';

export interface Unsubscribes {
  /** Marks the address unsubscribed from the organization's invitations (idempotent); later invitations to it are `skipped`, `unsubscribed`. */
  markUnsubscribed(organizationId: string, email: string): Promise<void>;
}

export interface UnsubscribeRoutesOptions {
  router: Router;
  tokens: UnsubscribeTokens;
  organizations: { get(id: string): Promise<{ name: string } | null> };
  unsubscribes: Unsubscribes;
}

/** The path of an unsubscribe link, for the mail (renderInvitation adds `?lang=`). */
export const unsubscribePath = (token: string): string => `/r/u/${token}`;

/** The body of RFC 8058's one-click POST. */
export const ONE_CLICK = 'List-Unsubscribe=One-Click';

function send(ctx: Context, status: number, page: RenderedPage): void {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('Content-Security-Policy', page.csp);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Vary', 'Accept-Language');
  ctx.body = page.html;
}

/** The question and its button: a form that posts the one-click body to this same URL. */
function askPage(w: PageWords, org: string, action: string): RenderedPage {
  const m = INVITATION_MAIL_CATALOGS[w.lang] ?? INVITATION_MAIL_EN;
  const form = `\n<form method="post" action="${e(action)}"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit">${e(m.unsubscribeButton)}</button></form>`;
  return messagePage(w, m.unsubscribeButton, fill(m.unsubscribeText, { org }), form);
}

export function registerUnsubscribeRoutes({ router, tokens, organizations, unsubscribes }: UnsubscribeRoutesOptions): void {
  const wordsFor = (ctx: Context): PageWords => pageMessages(chooseLanguage(ctx.query.lang, ctx.get('accept-language')));
  const notFound = (ctx: Context, w: PageWords): void => send(ctx, 404, messagePage(w, w.m.notFoundTitle, w.m.notFound));

  /** The organization the token names, or null (not ours, or the organization is gone). */
  const open = async (ctx: Context): Promise<{ organizationId: string; email: string; org: string } | null> => {
    const address = tokens.open(ctx.params.token);
    if (!address) return null;
    const org = await organizations.get(address.organizationId);
    return org ? { ...address, org: org.name } : null;
  };

  router.get('/r/u/:token', async (ctx) => {
    const w = wordsFor(ctx);
    const found = await open(ctx);
    if (!found) return notFound(ctx, w);
    send(ctx, 200, askPage(w, found.org, ctx.originalUrl));
  });

  router.post('/r/u/:token', async (ctx) => {
    const w = wordsFor(ctx);
    let body: string;
    try {
      body = (await readBody(ctx)).toString('utf8');
    } catch (err) {
      if (err instanceof ApiError && err.status === 413) body = '';
      else throw err;
    }
    const found = await open(ctx);
    if (!found) return notFound(ctx, w);
    // application/x-www-form-urlencoded (RFC 8058's example, and the page's form) or multipart/form-data with that one field.
    const oneClick = new URLSearchParams(body).get('List-Unsubscribe') === 'One-Click' || (/multipart\/form-data/i.test(ctx.get('content-type')) && /name="List-Unsubscribe"\r?\n\r?\nOne-Click\r?\n/.test(body));
    if (!oneClick) return send(ctx, 400, askPage(w, found.org, ctx.originalUrl));
    await unsubscribes.markUnsubscribed(found.organizationId, found.email);
    const m = INVITATION_MAIL_CATALOGS[w.lang] ?? INVITATION_MAIL_EN;
    send(ctx, 200, messagePage(w, m.unsubscribeButton, fill(m.unsubscribed, { org: found.org })));
  });
}
