/**
 * An invitation's link (CONTRACT §14), HTML like the review page it reuses:
 *   GET  /r/i/{token}[?rating=1..5&lang=…]   the review form (the rating chosen in the mail preselected)
 *   POST /r/i/{token}                        the review: published at once, `isVerified`
 * The same form and thank-you page for every invitee whatever the rating
 * (no gating). A used link says the review was received and that the
 * private link of the thank-you page changes it, never the link itself (the
 * organization holds every invitation link); a link for an address that
 * already has a published review of that product (or organization) says so
 * and creates nothing (a link never replaces a review: the organization
 * holds them all); an expired one says so; a tampered or unknown one is
 * the 404 page. The page's language: `?lang=`, else the invitation's, else
 * the browser's.
 */
import type { Context } from 'koa';
import type Router from '@koa/router';
import { EMPTY_FORM, formPage, messagePage, type FormValues } from '../collect/page.ts';
import { readForm, send } from '../collect/routes.ts';
import { chooseLanguage, escapeHtml as e, pageMessages, type PageWords } from '../collect/words.ts';
import { INVITATION_PAGE_CATALOGS, INVITATION_PAGE_EN, type InvitationPageMessages } from '../../widget/src/i18n/invitation-page.ts';
import type { InvitationsService, LinkOutcome, LinkSubmitOutcome } from './service.ts';

const inviteWords = (lang: string): InvitationPageMessages => INVITATION_PAGE_CATALOGS[lang] ?? INVITATION_PAGE_EN;

function wordsFor(ctx: Context, locale: string | null): PageWords {
  return pageMessages(chooseLanguage(ctx.query.lang ?? locale ?? undefined, ctx.get('accept-language')));
}

const ratingOf = (ctx: Context): string => (typeof ctx.query.rating === 'string' && /^[1-5]$/.test(ctx.query.rating) ? ctx.query.rating : '');

/** The private link, on the thank-you page only, with the words that it is shown there alone. */
const editLink = (url: string, iw: InvitationPageMessages): string => `<p><a class="share" href="${e(url)}">${e(iw.editLink)}</a></p>\n<p>${e(iw.keepLink)}</p>`;

/** Every answer that is not the form. */
function other(ctx: Context, w: PageWords, outcome: Exclude<LinkOutcome, { kind: 'form' }>): void {
  const iw = inviteWords(w.lang);
  switch (outcome.kind) {
    case 'not_found':
      return send(ctx, 404, messagePage(w, w.m.notFoundTitle, w.m.notFound));
    case 'expired':
      return send(ctx, 410, messagePage(w, iw.expiredTitle, iw.expired));
    case 'gone':
      return send(ctx, 410, messagePage(w, w.m.notFoundTitle, iw.cancelled));
    case 'already_reviewed':
      // Nothing created: the address's earlier review stands, changed only through its own private link.
      return send(ctx, 409, messagePage(w, iw.alreadyTitle, iw.already));
    case 'reviewed':
      return send(ctx, 200, messagePage(w, iw.receivedTitle, iw.received, `<p>${e(iw.receivedHow)}</p>`));
  }
}

export function registerInvitationPageRoutes(args: { router: Router; invitations: InvitationsService }): void {
  const { router, invitations } = args;
  const action = (ctx: Context): string => `/r/i/${encodeURIComponent(ctx.params.token!)}${typeof ctx.query.lang === 'string' && /^[A-Za-z-]{2,12}$/.test(ctx.query.lang) ? `?lang=${ctx.query.lang}` : ''}`;

  const form = (ctx: Context, status: number, w: PageWords, page: Extract<LinkOutcome, { kind: 'form' }>, values: FormValues, errors: Parameters<typeof formPage>[0]['errors'], formExpired: boolean): void =>
    send(ctx, status, formPage({ w, organization: page.org.name, product: page.product, action: action(ctx), token: invitations.formToken(page.invitation), values, errors, formExpired, askEmail: false }));

  router.get('/r/i/:token', async (ctx) => {
    const outcome = await invitations.open(ctx.params.token!);
    const w = wordsFor(ctx, outcome.kind === 'form' ? outcome.invitation.locale : null);
    if (outcome.kind !== 'form') return other(ctx, w, outcome);
    form(ctx, 200, w, outcome, { ...EMPTY_FORM, rating: ratingOf(ctx) }, {}, false);
  });

  router.post('/r/i/:token', async (ctx) => {
    const token = ctx.params.token!;
    const opened = await invitations.open(token);
    const w = wordsFor(ctx, opened.kind === 'form' ? opened.invitation.locale : null);
    if (opened.kind !== 'form') return other(ctx, w, opened);
    const body = await readForm(ctx);
    const values: FormValues = body
      ? { rating: body.get('rating') ?? '', content: body.get('content') ?? '', authorName: body.get('authorName') ?? '', email: '', consent: body.get('consent') === 'yes' }
      : EMPTY_FORM;
    if (!body) return form(ctx, 413, w, opened, values, { content: true }, false);
    // The honeypot: a bot that filled the hidden field is thanked, and nothing is kept (the link stays usable).
    if ((body.get('website') ?? '') !== '') return send(ctx, 200, messagePage(w, w.m.thanksTitle, inviteWords(w.lang).thanksPublished));
    const outcome: LinkSubmitOutcome = await invitations.submit(token, body.get('token'), values, w.lang);
    if (outcome.kind === 'invalid') return form(ctx, 400, w, outcome.page, values, outcome.errors, outcome.formExpired);
    if (outcome.kind === 'published') {
      const iw = inviteWords(w.lang);
      const share = outcome.shareUrl ? `<p><a class="share" href="${e(outcome.shareUrl)}" rel="noopener">${e(w.m.share.replace('{site}', hostOf(outcome.shareUrl)))}</a></p>` : '';
      return send(ctx, 200, messagePage(w, w.m.thanksTitle, iw.thanksPublished, editLink(outcome.manageUrl, iw) + share));
    }
    if (outcome.kind === 'form') return form(ctx, 200, w, outcome, values, {}, false);
    other(ctx, w, outcome);
  });
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname.replace(/^www\./, '');
  } catch {
    return url;
  }
}
