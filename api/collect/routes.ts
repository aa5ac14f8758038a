/**
 * The review page's routes (CONTRACT §13), HTML only, each calling
 * CollectService:
 *   GET/POST /r/{collectId}[?product=…&lang=…]   the form, and its submission
 *   GET/POST /r/confirm/{token}                 the confirmation page; only its button (POST) confirms
 *   GET/POST /r/review/{token}                  the reviewer's private page: edit or delete
 * Every answer is a page (a wrong field re-renders the form with what was
 * typed; 404, 429 and used links have their own page), never a JSON error.
 */
import type { Context } from 'koa';
import type Router from '@koa/router';
import { readBody } from '../admin/body.ts';
import { ApiError } from '../errors.ts';
import { addressKey } from '../limits/address-key.ts';
import type { Limiter } from '../limits/rate-limit.ts';
import type { Logger } from '../logger.ts';
import { confirmPage, EMPTY_FORM, formPage, managePage, messagePage, thanksPage, type FormValues, type RenderedPage } from './page.ts';
import { SUBMISSIONS_PER_HOUR, type CollectService } from './service.ts';
import { chooseLanguage, pageMessages, type PageWords } from './words.ts';

export interface CollectRoutesOptions {
  router: Router;
  collect: CollectService;
  /** Counts accepted submissions per client address (an hour's window; Redis with REDIS_URL). */
  limiter: Limiter;
  logger: Logger;
}

export function send(ctx: Context, status: number, page: RenderedPage): void {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('Content-Security-Policy', page.csp);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Vary', 'Accept-Language');
  ctx.body = page.html;
}

function wordsFor(ctx: Context): PageWords {
  return pageMessages(chooseLanguage(ctx.query.lang, ctx.get('accept-language')));
}

const notFound = (ctx: Context, w: PageWords): void => send(ctx, 404, messagePage(w, w.m.notFoundTitle, w.m.notFound));

/** The form's fields, from an urlencoded body (anything else reads as empty fields). */
export async function readForm(ctx: Context): Promise<URLSearchParams | null> {
  try {
    const body = await readBody(ctx);
    return new URLSearchParams(body.toString('utf8'));
  } catch (err) {
    if (err instanceof ApiError && err.status === 413) return null;
    throw err;
  }
}

const str = (form: URLSearchParams, name: string): string => form.get(name) ?? '';

function valuesOf(form: URLSearchParams): FormValues {
  return { rating: str(form, 'rating'), content: str(form, 'content'), authorName: str(form, 'authorName'), email: str(form, 'email'), consent: form.get('consent') === 'yes' };
}

export function registerCollectRoutes({ router, collect, limiter }: CollectRoutesOptions): void {
  const productOf = (ctx: Context): string | null => (typeof ctx.query.product === 'string' && ctx.query.product !== '' ? ctx.query.product : null);
  const actionOf = (ctx: Context): string => ctx.originalUrl;

  router.get('/r/confirm/:token', async (ctx) => {
    const w = wordsFor(ctx);
    const sub = await collect.confirmable(ctx.params.token!);
    if (!sub) return send(ctx, 410, messagePage(w, w.m.confirmTitle, w.m.linkGone));
    send(ctx, 200, confirmPage(pageMessages(ctx.query.lang ? w.lang : sub.language), actionOf(ctx), sub));
  });

  router.post('/r/confirm/:token', async (ctx) => {
    const w = wordsFor(ctx);
    const outcome = await collect.confirm(ctx.params.token!);
    if (outcome === 'gone') return send(ctx, 410, messagePage(w, w.m.confirmTitle, w.m.linkGone));
    send(ctx, 200, messagePage(w, w.m.thanksTitle, outcome === 'published' ? w.m.confirmedPublished : w.m.confirmedHeld));
  });

  router.get('/r/review/:token', async (ctx) => {
    const w = wordsFor(ctx);
    const sub = await collect.manageable(ctx.params.token!);
    if (!sub) return send(ctx, 410, messagePage(w, w.m.editTitle, w.m.linkGone));
    const values = { ...EMPTY_FORM, rating: String(sub.rating), content: sub.content, authorName: sub.authorName };
    send(ctx, 200, managePage({ w, action: actionOf(ctx), values, errors: {}, saved: false }));
  });

  router.post('/r/review/:token', async (ctx) => {
    const w = wordsFor(ctx);
    const form = (await readForm(ctx)) ?? new URLSearchParams();
    const token = ctx.params.token!;
    if (form.get('op') === 'delete') {
      const deleted = await collect.delete(token);
      return send(ctx, deleted ? 200 : 410, messagePage(w, w.m.deleteTitle, deleted ? w.m.deleted : w.m.linkGone));
    }
    const values = valuesOf(form);
    const outcome = await collect.edit(token, values);
    if (outcome === 'gone') return send(ctx, 410, messagePage(w, w.m.editTitle, w.m.linkGone));
    send(ctx, outcome.ok ? 200 : 400, managePage({ w, action: actionOf(ctx), values, errors: outcome.ok ? {} : outcome.errors, saved: outcome.ok }));
  });

  router.get('/r/:collectId', async (ctx) => {
    const w = wordsFor(ctx);
    const page = await collect.page(ctx.params.collectId!, productOf(ctx));
    if (!page) return notFound(ctx, w);
    send(ctx, 200, formPage({ w, organization: page.org.name, product: page.product, action: actionOf(ctx), token: collect.formToken(page), values: EMPTY_FORM, errors: {}, formExpired: false }));
  });

  router.post('/r/:collectId', async (ctx) => {
    const w = wordsFor(ctx);
    const page = await collect.page(ctx.params.collectId!, productOf(ctx));
    if (!page) return notFound(ctx, w);
    const form = await readForm(ctx);
    const values = form ? valuesOf(form) : EMPTY_FORM;
    const render = (status: number, errors: Parameters<typeof formPage>[0]['errors'], formExpired: boolean): void =>
      send(ctx, status, formPage({ w, organization: page.org.name, product: page.product, action: actionOf(ctx), token: collect.formToken(page), values, errors, formExpired }));
    if (!form) return render(413, { content: true }, false);
    const errors = collect.check(values);
    const formCheck = collect.keys.checkFormToken(form.get('token'), page.settings.collectId, page.product?.id ?? null, new Date());
    if (Object.keys(errors).length > 0 || formCheck !== 'ok') return render(400, errors, formCheck !== 'ok');
    // Counted once the form is complete: a person correcting a typo is not a second submission.
    const decision = await limiter.decide(addressKey(ctx.ip), SUBMISSIONS_PER_HOUR);
    if (!decision.admitted) {
      ctx.set('Retry-After', String(decision.retryAfter ?? 3600));
      return send(ctx, 429, messagePage(w, w.m.tooManyTitle, w.m.tooMany));
    }
    // The honeypot: a bot that filled the hidden field is thanked like anyone, and nothing is kept.
    if (str(form, 'website') !== '') return send(ctx, 200, thanksPage(w, { mail: collect.mails, shareUrl: page.settings.shareUrl }));
    const outcome = await collect.submit(page, form.get('token'), values, w.lang);
    if (!outcome.ok) return render(400, outcome.errors, outcome.form !== 'ok');
    send(ctx, 200, thanksPage(w, outcome.thanks));
  });
}
