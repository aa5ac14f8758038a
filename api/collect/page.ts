/**
 * The review page's HTML (CONTRACT §13): rendered on the server, works
 * without JavaScript (the page has none), in the visitor's language. One
 * small stylesheet, inline and allowed by its hash in a strict CSP; no
 * request to anyone else (system fonts, inline SVG stars; a product's own
 * picture is the one exception, allowed by its origin only).
 *
 * The star rating is a radio group (a fieldset whose legend is "Rating"),
 * each star a radio labelled "{n} out of 5 stars"; the stars light up to the
 * one chosen with `:has()` alone.
 */
import { createHash } from 'node:crypto';
import type { Product } from '../store/product-types.ts';
import type { FieldErrors, FieldName } from './service.ts';
import { MAX_CONTENT, MAX_NAME } from './service.ts';
import { escapeHtml as e, fill, type PageWords } from './words.ts';

const CSS = `
*,*::before,*::after{box-sizing:border-box}
body{margin:0;font:17px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans",sans-serif;background:#f4f5f8;color:#111827}
main{max-width:600px;margin:0 auto;padding:32px 16px 48px}
.card{background:#fff;border:1px solid #e3e6eb;border-radius:16px;padding:28px 24px;box-shadow:0 1px 2px rgba(17,24,39,.04),0 8px 24px rgba(17,24,39,.04)}
h1{font-size:1.6rem;line-height:1.25;margin:0 0 6px}
.intro{margin:0 0 24px;color:#4b5563}
.product{display:flex;gap:16px;align-items:center;margin:0 0 20px}
.product img{width:72px;height:72px;object-fit:cover;border-radius:10px;border:1px solid #e3e6eb;flex:none}
.product p{margin:0;font-weight:600}
.field{margin:0 0 22px}
label.block,legend{display:block;font-weight:650;margin:0 0 6px;padding:0}
fieldset{border:0;margin:0 0 22px;padding:0;min-width:0}
.hint{display:block;color:#4b5563;font-size:.92rem;margin:-2px 0 8px}
.error{display:block;color:#b91c1c;font-weight:600;font-size:.95rem;margin:0 0 8px}
input[type=text],input[type=email],textarea{width:100%;font:inherit;color:inherit;background:#fff;border:1.5px solid #8a93a3;border-radius:10px;padding:11px 12px}
textarea{min-height:9em;resize:vertical}
input[type=text]:focus-visible,input[type=email]:focus-visible,textarea:focus-visible{outline:3px solid #4338ca;outline-offset:1px;border-color:#4338ca}
[aria-invalid=true]{border-color:#b91c1c!important}
.stars{display:flex;gap:4px;flex-wrap:wrap}
.stars input{position:absolute;opacity:0;width:1px;height:1px;margin:0}
.stars label{display:inline-flex;padding:4px;border-radius:10px;cursor:pointer;color:#8a93a3}
.stars svg{width:44px;height:44px;display:block}
.stars input:focus-visible+label{outline:3px solid #4338ca;outline-offset:1px}
.stars:has(input:nth-of-type(1):checked) label:nth-of-type(-n+1),
.stars:has(input:nth-of-type(2):checked) label:nth-of-type(-n+2),
.stars:has(input:nth-of-type(3):checked) label:nth-of-type(-n+3),
.stars:has(input:nth-of-type(4):checked) label:nth-of-type(-n+4),
.stars:has(input:nth-of-type(5):checked) label:nth-of-type(-n+5){color:#d97706}
.stars label:hover,.stars label:has(~label:hover){color:#f59e0b}
.vh{position:absolute!important;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);clip-path:inset(50%);white-space:nowrap}
.check{display:flex;gap:10px;align-items:flex-start;font-weight:600}
.check input{width:22px;height:22px;margin:2px 0 0;flex:none;accent-color:#4338ca}
.trap{position:absolute;left:-10000px;top:auto;width:1px;height:1px;overflow:hidden}
button{font:inherit;font-weight:650;color:#fff;background:#4338ca;border:0;border-radius:10px;padding:13px 22px;cursor:pointer;min-height:48px}
button:hover{background:#3730a3}
button:focus-visible{outline:3px solid #4338ca;outline-offset:3px}
button.danger{background:#b91c1c}
button.danger:hover{background:#991b1b}
.summary{border:2px solid #b91c1c;background:#fef2f2;border-radius:10px;padding:12px 14px;margin:0 0 22px;font-weight:600;color:#7f1d1d}
.notice{border:1px solid #c7d2fe;background:#eef2ff;border-radius:10px;padding:12px 14px;margin:0 0 22px}
.quote-stars{color:#d97706;font-size:1.9rem;line-height:1;letter-spacing:3px;margin:0 0 10px}
blockquote{margin:0 0 22px;white-space:pre-wrap}
.share{display:inline-block;margin-top:8px;font-weight:650;color:#4338ca}
a{color:#4338ca}
hr{border:0;border-top:1px solid #e3e6eb;margin:28px 0}
@media (max-width:400px){main{padding:16px 10px 32px}.card{padding:22px 16px}.stars svg{width:40px;height:40px}.stars{gap:2px}}
`.trim();

const CSS_HASH = `'sha256-${createHash('sha256').update(CSS).digest('base64')}'`;

const STAR = '<svg viewBox="0 0 24 24" aria-hidden="true" focusable="false"><path fill="currentColor" d="M12 2.6l2.9 6.1 6.6.8-4.9 4.6 1.3 6.6L12 17.4l-5.9 3.3 1.3-6.6-4.9-4.6 6.6-.8z"/></svg>';

export interface RenderedPage {
  html: string;
  csp: string;
}

function csp(imageOrigin: string | null): string {
  return [
    "default-src 'none'",
    `style-src ${CSS_HASH}`,
    `img-src 'self'${imageOrigin ? ` ${imageOrigin}` : ''}`,
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

function layout(w: PageWords, title: string, body: string, imageOrigin: string | null = null): RenderedPage {
  const html = `<!doctype html>
<html lang="${e(w.lang)}" dir="${w.dir}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<meta name="referrer" content="no-referrer">
<title>${e(title)}</title>
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<style>${CSS}</style>
</head>
<body>
<main>
<div class="card">
${body}
</div>
</main>
</body>
</html>
`;
  return { html, csp: csp(imageOrigin) };
}

/** A page with a heading and a sentence (404, 429, a used link, a deletion). */
export function messagePage(w: PageWords, title: string, text: string, extra = ''): RenderedPage {
  return layout(w, title, `<h1>${e(title)}</h1>\n<p class="intro">${e(text)}</p>${extra}`);
}

export interface FormValues {
  rating: string;
  content: string;
  authorName: string;
  email: string;
  consent: boolean;
}

export const EMPTY_FORM: FormValues = { rating: '', content: '', authorName: '', email: '', consent: false };

function imageOriginOf(product: Product | null): string | null {
  if (!product?.imageUrl) return null;
  try {
    return new URL(product.imageUrl).origin;
  } catch {
    return null;
  }
}

function errorFor(name: FieldName, errors: FieldErrors, text: string): { attrs: string; html: string } {
  if (!errors[name]) return { attrs: '', html: '' };
  return { attrs: ' aria-invalid="true"', html: `<span class="error" id="${name}-error">${e(text)}</span>` };
}

const describedBy = (...ids: (string | false)[]): string => {
  const list = ids.filter(Boolean).join(' ');
  return list ? ` aria-describedby="${list}"` : '';
};

function starsFieldset(w: PageWords, values: FormValues, errors: FieldErrors): string {
  const err = errorFor('rating', errors, w.m.errRating);
  const radios = [1, 2, 3, 4, 5]
    .map((n) => `<input type="radio" name="rating" id="rating-${n}" value="${n}" required${values.rating === String(n) ? ' checked' : ''}${err.attrs ? ' aria-invalid="true"' : ''}${describedBy(errors.rating === true && 'rating-error')}><label for="rating-${n}">${STAR}<span class="vh">${e(fill(w.stars, { n: String(n) }))}</span></label>`)
    .join('');
  return `<fieldset><legend>${e(w.m.rating)}</legend>${err.html}<div class="stars">${radios}</div></fieldset>`;
}

/** The text fields and stars, shared by the page's form and the reviewer's edit form. */
function reviewFields(w: PageWords, values: FormValues, errors: FieldErrors): string {
  const content = errorFor('content', errors, w.m.errReview);
  const name = errorFor('authorName', errors, w.m.errName);
  return `${starsFieldset(w, values, errors)}
<div class="field"><label class="block" for="content">${e(w.m.review)}</label><span class="hint" id="content-hint">${e(w.m.reviewHint)}</span>${content.html}<textarea id="content" name="content" required maxlength="${MAX_CONTENT}"${content.attrs}${describedBy('content-hint', errors.content === true && 'content-error')}>${e(values.content)}</textarea></div>
<div class="field"><label class="block" for="authorName">${e(w.m.name)}</label><span class="hint" id="authorName-hint">${e(w.m.nameHint)}</span>${name.html}<input type="text" id="authorName" name="authorName" required maxlength="${MAX_NAME}" autocomplete="name" value="${e(values.authorName)}"${name.attrs}${describedBy('authorName-hint', errors.authorName === true && 'authorName-error')}></div>`;
}

export function formPage(args: {
  w: PageWords;
  organization: string;
  product: Product | null;
  action: string;
  token: string;
  values: FormValues;
  errors: FieldErrors;
  formExpired: boolean;
  /** False on an invitation's link (§14): the invitation has the address, the form asks for none. */
  askEmail?: boolean;
}): RenderedPage {
  const { w, product, values, errors } = args;
  const askEmail = args.askEmail ?? true;
  const title = fill(w.m.title, { org: args.organization });
  const subject = product?.name ?? args.organization;
  const hasErrors = Object.keys(errors).length > 0;
  const email = errorFor('email', errors, w.m.errEmail);
  const consent = errorFor('consent', errors, w.m.errConsent);
  const summary = hasErrors
    ? `<div class="summary" role="alert">${e(w.m.errSummary)}</div>`
    : args.formExpired
      ? `<div class="summary" role="alert">${e(w.m.errForm)}</div>`
      : '';
  const productBlock = product
    ? `<div class="product">${product.imageUrl ? `<img src="${e(product.imageUrl)}" alt="" width="72" height="72">` : ''}<p>${e(product.name)}</p></div>`
    : '';
  const body = `<h1>${e(title)}</h1>
<p class="intro">${e(fill(w.m.intro, { s: subject }))}</p>
${productBlock}${summary}
<form method="post" action="${e(args.action)}" novalidate>
<input type="hidden" name="token" value="${e(args.token)}">
${reviewFields(w, values, errors)}
${askEmail ? `<div class="field"><label class="block" for="email">${e(w.m.email)}</label><span class="hint" id="email-hint">${e(w.m.emailHint)}</span>${email.html}<input type="email" id="email" name="email" required maxlength="254" autocomplete="email" value="${e(values.email)}"${email.attrs}${describedBy('email-hint', errors.email === true && 'email-error')}></div>
` : ''}<div class="trap" aria-hidden="true"><label for="website">Website</label><input type="text" id="website" name="website" tabindex="-1" autocomplete="off"></div>
<div class="field">${consent.html}<label class="check"><input type="checkbox" name="consent" value="yes" required${values.consent ? ' checked' : ''}${consent.attrs}${describedBy(errors.consent === true && 'consent-error')}><span>${e(w.m.consent)}</span></label></div>
<button type="submit">${e(w.m.submit)}</button>
</form>`;
  return layout(w, title, body, imageOriginOf(product));
}

/** The thank-you page: the same whatever the rating (it never knows it), the share link on every one. */
export function thanksPage(w: PageWords, thanks: { mail: boolean; shareUrl: string | null }): RenderedPage {
  const share = thanks.shareUrl ? `<p><a class="share" href="${e(thanks.shareUrl)}" rel="noopener">${e(fill(w.m.share, { site: hostOf(thanks.shareUrl) }))}</a></p>` : '';
  return messagePage(w, w.m.thanksTitle, thanks.mail ? w.m.thanksMail : w.m.thanksHeld, share);
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname.replace(/^www\./, '');
  } catch {
    return url;
  }
}

/** The confirmation link's page: one button (POST); opening it confirms nothing. */
export function confirmPage(w: PageWords, action: string, review: { rating: number; content: string }): RenderedPage {
  const stars = fill(w.stars, { n: String(review.rating) });
  const body = `<h1>${e(w.m.confirmTitle)}</h1>
<p class="intro">${e(w.m.confirmText)}</p>
<p class="vh">${e(stars)}</p><p class="quote-stars" aria-hidden="true">${'★'.repeat(review.rating)}${'☆'.repeat(5 - review.rating)}</p>
<blockquote class="notice">${e(review.content)}</blockquote>
<form method="post" action="${e(action)}"><button type="submit">${e(w.m.confirmButton)}</button></form>`;
  return layout(w, w.m.confirmTitle, body);
}

/** The reviewer's private page: edit (same review) or delete. */
export function managePage(args: { w: PageWords; action: string; values: FormValues; errors: FieldErrors; saved: boolean }): RenderedPage {
  const { w } = args;
  const hasErrors = Object.keys(args.errors).length > 0;
  const body = `<h1>${e(w.m.editTitle)}</h1>
${hasErrors ? `<div class="summary" role="alert">${e(w.m.errSummary)}</div>` : ''}${args.saved ? `<div class="notice" role="status">${e(w.m.saved)}</div>` : ''}
<form method="post" action="${e(args.action)}" novalidate>
<input type="hidden" name="op" value="edit">
${reviewFields(w, args.values, args.errors)}
<button type="submit">${e(w.m.save)}</button>
</form>
<hr>
<h2>${e(w.m.deleteTitle)}</h2>
<form method="post" action="${e(args.action)}"><input type="hidden" name="op" value="delete"><button type="submit" class="danger">${e(w.m.deleteButton)}</button></form>`;
  return layout(w, w.m.editTitle, body);
}
