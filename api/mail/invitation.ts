/**
 * The review invitation mail and its reminder (CONTRACT §14), rendered from
 * plain data: subject, HTML, plain text and headers, nothing sent here (the
 * sending is api/mail/door.ts).
 *
 * - Language: the invitation's `locale` when the review page speaks it (its
 *   base: `de-AT` is `de`), else the organization's language, else English.
 * - Content: the organization's name (also the sender's display name), the
 *   product's name and picture (or the organization alone), five star links,
 *   each the review link with `?rating=n` (the page opens with that rating
 *   chosen), a visible unsubscribe link (with `?lang=`: its page speaks the
 *   mail's language), and `List-Unsubscribe` +
 *   `List-Unsubscribe-Post: List-Unsubscribe=One-Click` (RFC 8058).
 * - Deliverability: a plain-text part with the same words and links, no
 *   tracking pixel, no shortened or redirected link, no script; the only
 *   image is the product's own picture (https only), never a per-recipient URL.
 * - Fairness: the input has no rating, sentiment or anything known of the
 *   invitee's opinion, so every invitee of one organization, product and
 *   language gets the same mail but for their name and their own links.
 * - Safety: names come from customers' shops and CSV files: they are put on
 *   one line (no header can be injected through the subject or the sender's
 *   name), shortened, and escaped in HTML.
 */
import { CATALOGS } from '../../widget/src/i18n/catalogs.ts';
import { INVITATION_MAIL_CATALOGS, INVITATION_MAIL_EN, type InvitationMailMessages } from '../../widget/src/i18n/invitation-mail.ts';
import { EN } from '../../widget/src/messages.ts';
import { REVIEW_PAGE_CATALOGS, REVIEW_PAGE_EN } from '../../widget/src/i18n/review-page.ts';
import { escapeHtml as e, fill, PAGE_LANGUAGES } from '../collect/words.ts';

export type InvitationMailKind = 'invitation' | 'reminder';

export interface InvitationMailData {
  kind: InvitationMailKind;
  /** The invitation's `locale` (a language tag, e.g. `de` or `pt-BR`), or null. */
  locale: string | null;
  organization: {
    name: string;
    /** The organization's language (ISO 639-1), used when the invitation has no locale the page speaks. */
    language: string;
    /** The sender name setting of the Collect page; null or empty: the organization's name. */
    senderName?: string | null;
  };
  /** The product the invitee bought, or null to ask about the organization. */
  product: { name: string; imageUrl: string | null } | null;
  /** The invitee's name (`Hello {name},`), or null. Their email is the envelope's, never the body's. */
  inviteeName: string | null;
  /** The invitation's review link (`{PUBLIC_URL}/r/i/{token}`); each star adds `?rating=n`. */
  reviewUrl: string;
  /** The https unsubscribe link (one click with POST, a page with a button with GET). */
  unsubscribeUrl: string;
  /** An optional `mailto:` for `List-Unsubscribe`, after the https one. */
  unsubscribeMailto?: string | null;
}

export interface RenderedInvitation {
  /** The language the mail is written in. */
  language: string;
  subject: string;
  text: string;
  html: string;
  /** The sender's display name (the address is SMTP_FROM's). */
  fromName: string;
  /** Extra headers: List-Unsubscribe, List-Unsubscribe-Post, Auto-Submitted. */
  headers: Record<string, string>;
}

/** The longest organization or product name a mail shows; longer ones end with "…". */
export const MAX_NAME_IN_MAIL = 120;

const RTL = new Set(['ar', 'he']);

/** The mail's language: the invitation's locale, else the organization's, else English (each when the review page speaks it). */
export function invitationLanguage(locale: string | null, organizationLanguage: string): string {
  for (const tag of [locale, organizationLanguage]) {
    const base = typeof tag === 'string' ? tag.trim().toLowerCase().split(/[-_]/)[0]! : '';
    if (PAGE_LANGUAGES.includes(base)) return base;
  }
  return 'en';
}

/**
 * One line of at most `max` characters: control characters (CR, LF, NUL, …)
 * and Unicode line separators become spaces, runs of spaces one. This is what
 * keeps a name from starting a header of its own.
 */
export function oneLine(value: string, max = MAX_NAME_IN_MAIL): string {
  const flat = value.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, ' ').replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${[...flat].slice(0, max - 1).join('').trimEnd()}…` : flat;
}

/** The review link with `rating=n` (replacing one already there). */
export function starUrl(reviewUrl: string, rating: number): string {
  return withParam(reviewUrl, 'rating', String(rating));
}

function withParam(link: string, name: string, value: string): string {
  const url = new URL(link);
  url.searchParams.set(name, value);
  return url.toString();
}

function httpsUrl(value: string, what: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new TypeError(`${what} is not a URL`);
  }
  if (url.protocol !== 'https:') throw new TypeError(`${what} must be an https URL`);
  return url.toString();
}

/** The product's picture, when it is an https URL (anything else is left out rather than loaded over plain HTTP). */
function pictureUrl(imageUrl: string | null): string | null {
  if (!imageUrl) return null;
  try {
    return new URL(imageUrl).protocol === 'https:' ? new URL(imageUrl).toString() : null;
  } catch {
    return null;
  }
}

interface Words {
  lang: string;
  dir: 'ltr' | 'rtl';
  m: InvitationMailMessages;
  /** The review page's "How was your experience with {s}?" */
  question: string;
  /** The widget's "{n} out of 5 stars". */
  stars: string;
}

function wordsFor(language: string): Words {
  return {
    lang: language,
    dir: RTL.has(language) ? 'rtl' : 'ltr',
    m: INVITATION_MAIL_CATALOGS[language] ?? INVITATION_MAIL_EN,
    question: (REVIEW_PAGE_CATALOGS[language] ?? REVIEW_PAGE_EN).intro,
    stars: CATALOGS[language]?.stars ?? EN.stars,
  };
}

const STAR_COLOR = '#d97706';
const FONT = "system-ui,-apple-system,'Segoe UI',Roboto,'Noto Sans','Noto Sans CJK JP','Noto Sans Arabic','Noto Sans Hebrew',Helvetica,Arial,sans-serif";

export function renderInvitation(data: InvitationMailData): RenderedInvitation {
  const language = invitationLanguage(data.locale, data.organization.language);
  const w = wordsFor(language);
  const org = oneLine(data.organization.name) || '—';
  const productName = data.product ? oneLine(data.product.name) : '';
  const subjectOf = productName || org;
  const fromName = oneLine(data.organization.senderName ?? '') || org;
  const name = data.inviteeName ? oneLine(data.inviteeName, 100) : '';
  const reviewUrl = httpsUrl(data.reviewUrl, 'reviewUrl');
  // The unsubscribe page speaks the mail's language.
  const unsubscribeUrl = withParam(httpsUrl(data.unsubscribeUrl, 'unsubscribeUrl'), 'lang', language);
  const picture = data.product ? pictureUrl(data.product.imageUrl) : null;
  const reminder = data.kind === 'reminder';

  const subject = fill(reminder ? w.m.reminderSubject : w.question, { s: subjectOf });
  const hello = name ? fill(w.m.hello, { name }) : '';
  const ask = fill(reminder ? w.m.reminderAsk : w.m.ask, { org, s: subjectOf });
  const unsubscribe = fill(w.m.unsubscribe, { org });
  const why = fill(w.m.why, { org });
  const ratings = [1, 2, 3, 4, 5].map((n) => ({ n, url: starUrl(reviewUrl, n), label: fill(w.stars, { n: String(n) }) }));

  const text = [
    ...(hello ? [hello, ''] : []),
    ask,
    '',
    // Best first in the text part: a reader scanning it meets the scale's top, and every line says its own rating.
    ...ratings
      .slice()
      .reverse()
      .flatMap((r) => [`${'★'.repeat(r.n)}${'☆'.repeat(5 - r.n)}  ${r.label}`, r.url, '']),
    w.m.honest,
    '',
    '-- ',
    why,
    `${unsubscribe}:`,
    unsubscribeUrl,
    '',
  ].join('\n');

  const starCells = ratings
    .map(
      (r) =>
        `<td align="center" style="padding:0 2px"><a href="${e(r.url)}" title="${e(r.label)}" aria-label="${e(r.label)}" style="display:block;min-width:40px;padding:8px 0 6px;border:1px solid #e3e6eb;border-radius:12px;background:#fffbeb;color:${STAR_COLOR};text-decoration:none;font-family:${FONT}"><span style="display:block;font-size:34px;line-height:38px">★</span><span style="display:block;font-size:15px;line-height:20px;font-weight:700;color:#374151">${r.n}</span></a></td>`,
    )
    .join('');
  const heading = picture
    ? `<table role="presentation" cellpadding="0" cellspacing="0" border="0" style="margin:0 0 20px"><tr><td style="padding:0;vertical-align:middle"><img src="${e(picture)}" width="72" height="72" alt="${e(productName)}" style="display:block;width:72px;height:72px;object-fit:cover;border-radius:10px;border:1px solid #e3e6eb"></td><td style="padding:0 16px;vertical-align:middle;font-weight:650;font-size:17px">${e(productName)}</td></tr></table>`
    : productName
      ? `<p style="margin:0 0 16px;font-weight:650;font-size:17px">${e(productName)}</p>`
      : '';

  const html = `<!doctype html>
<html lang="${e(w.lang)}" dir="${w.dir}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="color-scheme" content="light"><title>${e(subject)}</title></head>
<body style="margin:0;padding:0;background:#f4f5f8;color:#111827;font:16px/1.55 ${FONT}">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="background:#f4f5f8"><tr><td align="center" style="padding:24px 12px">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="max-width:560px;background:#ffffff;border:1px solid #e3e6eb;border-radius:14px"><tr><td style="padding:28px 24px;font:16px/1.55 ${FONT};color:#111827">
<p style="margin:0 0 4px;color:#4b5563;font-size:14px;font-weight:600">${e(org)}</p>
<h1 style="margin:0 0 18px;font-size:22px;line-height:1.3">${e(fill(w.question, { s: subjectOf }))}</h1>
${heading}${hello ? `<p style="margin:0 0 12px">${e(hello)}</p>\n` : ''}<p style="margin:0 0 18px">${e(ask)}</p>
<table role="presentation" cellpadding="0" cellspacing="0" border="0" style="margin:0 auto 18px"><tr>${starCells}</tr></table>
<p style="margin:0;color:#4b5563;font-size:15px">${e(w.m.honest)}</p>
</td></tr></table>
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="max-width:560px"><tr><td style="padding:16px 24px;font:14px/1.5 ${FONT};color:#4b5563">
<p style="margin:0 0 10px">${e(why)}</p>
<p style="margin:0"><a href="${e(unsubscribeUrl)}" style="color:#374151;text-decoration:underline">${e(unsubscribe)}</a></p>
</td></tr></table>
</td></tr></table>
</body>
</html>
`;

  const mailto = data.unsubscribeMailto && /^mailto:[^\s<>]+$/.test(data.unsubscribeMailto) ? data.unsubscribeMailto : null;
  const headers = {
    'List-Unsubscribe': `<${unsubscribeUrl}>${mailto ? `, <${mailto}>` : ''}`,
    'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    // RFC 3834: made by a program, so vacation responders do not answer it.
    'Auto-Submitted': 'auto-generated',
  };
  return { language, subject, text, html, fromName, headers };
}

/** What the preview shows in place of a real invitee and their links (the Collect page's previews). */
export const PREVIEW_INVITEE = 'Alex';

export interface InvitationPreviewInput {
  kind?: InvitationMailKind;
  language: string;
  organization: InvitationMailData['organization'];
  product: InvitationMailData['product'];
  /** PUBLIC_URL: the preview's links point at it, to a token that opens nothing. */
  publicUrl: string;
}

/**
 * The mail a sample invitee would get in `language` (the Collect page shows
 * one per language). Its links are the real shape (`/r/i/{token}?rating=n`)
 * with the token `preview`, which no invitation has: following one shows the
 * review link's 404 page, and nothing is reviewed or unsubscribed.
 */
export function previewInvitation(input: InvitationPreviewInput): RenderedInvitation {
  const base = input.publicUrl.replace(/\/+$/, '');
  return renderInvitation({
    kind: input.kind ?? 'invitation',
    locale: input.language,
    organization: input.organization,
    product: input.product,
    inviteeName: PREVIEW_INVITEE,
    reviewUrl: `${base}/r/i/preview`,
    unsubscribeUrl: `${base}/r/u/preview`,
  });
}
