/**
 * The Collect page's invitations (CONTRACT §14, its second half): everyone
 * signed in reads the list, the counts, the conversion figures, the settings
 * and the mail's previews; Owner and Admin cancel and change the settings
 * (the route table says so). The dashboard is the one place an invitee's
 * address is shown.
 *
 *   GET  /invitations?state=&limit=&offset=   a page, newest first, counts per state, conversion 30/90 days
 *   POST /invitations/{id}/cancel             through InvitationsService.cancel (audit-logged); 409 not_cancellable
 *   GET  /invitations/settings                delay, reminder, default language, sender name
 *   PUT  /invitations/settings                all four replaced (audit-logged); 400 invalid_parameter per field
 *   GET  /invitations/preview?lang=&reminder= the mail (subject, HTML, text) for this organization
 *   GET  /invitations/preview.html?…          the same mail's HTML as a document, for the page's sandboxed frame
 *
 * Conversion (the page says the same): for a window of N days (today, UTC,
 * and the N-1 days before), the invitations *sent* in it (`sentDay`: the
 * relay accepted the mail; for links made for the organization's own mailer,
 * without a relay, the day the link was created) and how many of those are
 * `reviewed` now; the rate is reviewed ÷ sent, null when none was sent. The
 * stores keep both as counts (no walk of the invitations in a request).
 */
import type { Context } from 'koa';
import { readJson } from '../../admin/body.ts';
import { ApiError, invalidParameters } from '../../errors.ts';
import { PAGE_LANGUAGES } from '../../collect/words.ts';
import type { InvitationsService } from '../../invitations/service.ts';
import { previewInvitation } from '../../mail/invitation.ts';
import { invitationSettings, MAX_INVITATION_DELAY_DAYS, type InvitationSettings } from '../../store/collect-types.ts';
import { INVITATION_STATES, type InvitationState } from '../../store/invitation-types.ts';
import { audit } from '../audit.ts';
import { auth } from '../session.ts';
import type { DashboardDeps } from './deps.ts';

/** Invitations a page of the list shows at most (the page asks for 20). */
export const MAX_PAGE = 100;
/** The sender name's longest form. */
export const MAX_SENDER_NAME = 100;
/** The conversion windows, in days. */
export const CONVERSION_WINDOWS = [30, 90] as const;

const DAY_MS = 86_400_000;

type Problem = { parameter: string; message: string };

function service(deps: DashboardDeps): InvitationsService {
  if (!deps.invitations || !deps.collect) throw new ApiError(503, 'invitations_unavailable', 'Invitations are not available on this server.');
  return deps.invitations;
}

/** Query parameters other than `known`, as problems. */
function unknownParameters(query: URLSearchParams, known: string[]): Problem[] {
  return [...new Set(query.keys())]
    .filter((k) => !known.includes(k))
    .slice(0, 5)
    .map((k) => ({ parameter: k.slice(0, 60), message: 'is not a known parameter' }));
}

/** A whole number from `min` to `max` in the query, or a problem naming it. */
function wholeNumber(query: URLSearchParams, name: string, fallback: number, min: number, max: number, problems: Problem[]): number {
  const raw = query.get(name);
  if (raw === null || raw === '') return fallback;
  if (!/^\d{1,10}$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    problems.push({ parameter: name, message: `must be a whole number from ${min} to ${max.toLocaleString('en')}` });
    return fallback;
  }
  return Number(raw);
}

/** The first UTC day (YYYY-MM-DD) of a window of `days` days ending today. */
export function windowStart(days: number, now: Date): string {
  return new Date(now.getTime() - (days - 1) * DAY_MS).toISOString().slice(0, 10);
}

export interface ConversionFigure {
  /** The window's first day (UTC): invitations sent from then through today. */
  since: string;
  sent: number;
  reviewed: number;
  /** reviewed ÷ sent; null when none was sent. */
  rate: number | null;
}

export function listInvitations(deps: DashboardDeps) {
  return async function listInvitations(ctx: Context): Promise<void> {
    const { org } = auth(ctx);
    const invitations = service(deps);
    const query = new URLSearchParams(ctx.querystring);
    const problems = unknownParameters(query, ['state', 'limit', 'offset']);
    const limit = wholeNumber(query, 'limit', 20, 1, MAX_PAGE, problems);
    const offset = wholeNumber(query, 'offset', 0, 0, 1_000_000_000, problems);
    const rawState = query.get('state') ?? '';
    const state = rawState === '' ? undefined : (INVITATION_STATES as readonly string[]).includes(rawState) ? (rawState as InvitationState) : null;
    if (state === null) problems.push({ parameter: 'state', message: `must be one of ${INVITATION_STATES.join(', ')}` });
    if (problems.length > 0) throw invalidParameters(problems, `Invalid: ${problems.map((p) => `${p.parameter} ${p.message}`).join('; ')}.`);
    const now = new Date();
    const [page, counts, ...windows] = await Promise.all([
      invitations.list(org.id, { ...(state && { state }), limit, offset }),
      deps.store.invitations.countByState(org.id),
      ...CONVERSION_WINDOWS.map((days) => deps.store.invitations.sentSince(org.id, windowStart(days, now))),
    ]);
    const figure = (i: number): ConversionFigure => {
      const { sent, reviewed } = windows[i]!;
      return { since: windowStart(CONVERSION_WINDOWS[i]!, now), sent, reviewed, rate: sent === 0 ? null : reviewed / sent };
    };
    ctx.set('Cache-Control', 'no-store');
    ctx.body = {
      data: page.data,
      total: page.total,
      limit,
      offset,
      counts,
      conversion: { days30: figure(0), days90: figure(1) },
      mail: { configured: invitations.mails },
    };
  };
}

export function cancelInvitation(deps: DashboardDeps) {
  return async function cancelInvitation(ctx: Context): Promise<void> {
    const { org, user } = auth(ctx);
    const invitations = service(deps);
    const id = ctx.params.id!;
    const before = /^inv_[0-9A-Za-z]{20}$/.test(id) ? await deps.store.invitations.get(id) : null;
    const result = await invitations.cancel(org.id, id);
    // Audited when this request cancelled it (a second click answers the same and writes nothing). No address in the log.
    if (before && before.orgId === org.id && before.state !== 'cancelled') {
      await audit(deps.store, org.id, user, 'invitation.cancelled', { id, label: before.orderRef ? `Invitation for order ${before.orderRef}` : `Invitation ${id}` }, { from: before.state });
    }
    ctx.body = result;
  };
}

export function readInvitationSettings(deps: DashboardDeps) {
  return async function readInvitationSettings(ctx: Context): Promise<void> {
    const { org } = auth(ctx);
    service(deps);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = invitationSettings(await deps.store.collect.getSettings(org.id));
  };
}

/** The settings as sent (every field, nothing else), or a 400 invalid_parameter with one detail per field. */
export function checkSettings(body: unknown): InvitationSettings {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalidParameters([{ parameter: 'body', message: 'must be a JSON object' }], 'The body must be a JSON object.');
  const input = body as Record<string, unknown>;
  const problems: Problem[] = Object.keys(input)
    .filter((k) => !['delayDays', 'reminder', 'language', 'senderName'].includes(k))
    .slice(0, 5)
    .map((k) => ({ parameter: k.slice(0, 60), message: 'is not a known field' }));
  const { delayDays, reminder, language, senderName } = input;
  if (typeof delayDays !== 'number' || !Number.isInteger(delayDays) || delayDays < 0 || delayDays > MAX_INVITATION_DELAY_DAYS) {
    problems.push({ parameter: 'delayDays', message: `must be a whole number of days from 0 to ${MAX_INVITATION_DELAY_DAYS}` });
  }
  if (typeof reminder !== 'boolean') problems.push({ parameter: 'reminder', message: 'must be true or false' });
  if (language !== null && (typeof language !== 'string' || !PAGE_LANGUAGES.includes(language))) {
    problems.push({ parameter: 'language', message: `must be null (the organization's language) or one of ${PAGE_LANGUAGES.join(', ')}` });
  }
  let name: string | null = null;
  if (senderName !== null) {
    if (typeof senderName !== 'string') problems.push({ parameter: 'senderName', message: "must be text, or null (the organization's name)" });
    else if (/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(senderName)) problems.push({ parameter: 'senderName', message: 'must be one line (no line breaks or control characters)' });
    else if ([...senderName.trim()].length > MAX_SENDER_NAME) problems.push({ parameter: 'senderName', message: `must be at most ${MAX_SENDER_NAME} characters` });
    else name = senderName.trim().replace(/\s+/g, ' ') || null;
  }
  if (problems.length > 0) throw invalidParameters(problems, `Not saved: ${problems.map((p) => `${p.parameter} ${p.message}`).join('; ')}.`);
  return { delayDays: delayDays as number, reminder: reminder as boolean, language: language as string | null, senderName: name };
}

const settingsInWords = (s: InvitationSettings): string =>
  `delay: ${s.delayDays} ${s.delayDays === 1 ? 'day' : 'days'}; reminder: ${s.reminder ? 'on' : 'off'}; language: ${s.language ?? "the organization's"}; sender name: ${s.senderName ?? "the organization's name"}`;

export function updateInvitationSettings(deps: DashboardDeps) {
  return async function updateInvitationSettings(ctx: Context): Promise<void> {
    const { org, user } = auth(ctx);
    service(deps);
    const next = checkSettings(await readJson(ctx));
    // The record exists first (its link made), then only `invitations` is written: a review-page save at the same time keeps its fields.
    const before = invitationSettings(await deps.collect!.settings(org.id));
    const saved = await deps.store.collect.patchSettings(org.id, { invitations: next, updatedAt: new Date().toISOString() });
    if (!saved) throw new ApiError(409, 'settings_changed', 'The settings changed meanwhile; reload the page and try again.');
    if (settingsInWords(before) !== settingsInWords(next)) {
      await audit(deps.store, org.id, user, 'invitations.settings_changed', { id: org.id, label: 'Invitation settings' }, { words: settingsInWords(next) });
    }
    ctx.body = invitationSettings(saved);
  };
}

/** The preview asked for (`?lang=&reminder=`), rendered for the signed-in person's organization. */
async function renderPreview(deps: DashboardDeps, ctx: Context) {
  const { org } = auth(ctx);
  const invitations = service(deps);
  const query = new URLSearchParams(ctx.querystring);
  const problems = unknownParameters(query, ['lang', 'reminder']);
  const settings = invitationSettings(await deps.store.collect.getSettings(org.id));
  const lang = query.get('lang') || settings.language || (PAGE_LANGUAGES.includes(org.language) ? org.language : 'en');
  if (!PAGE_LANGUAGES.includes(lang)) problems.push({ parameter: 'lang', message: `must be one of ${PAGE_LANGUAGES.join(', ')}` });
  const reminderRaw = query.get('reminder') ?? '0';
  if (!['0', '1', 'true', 'false'].includes(reminderRaw)) problems.push({ parameter: 'reminder', message: 'must be 1 (the reminder) or 0 (the invitation)' });
  if (problems.length > 0) throw invalidParameters(problems, `Invalid: ${problems.map((p) => `${p.parameter} ${p.message}`).join('; ')}.`);
  const reminder = reminderRaw === '1' || reminderRaw === 'true';
  // A sample product: the catalog's first with an https picture, else its first; none: the mail asks about the organization.
  const products = await deps.store.products.list(org.id);
  const sample = products.find((p) => p.imageUrl?.startsWith('https://')) ?? products[0] ?? null;
  const mail = previewInvitation({
    kind: reminder ? 'reminder' : 'invitation',
    language: lang,
    organization: { name: org.name, language: org.language, senderName: settings.senderName },
    product: sample ? { name: sample.name, imageUrl: sample.imageUrl ?? null } : null,
    publicUrl: deps.config.publicUrl,
  });
  return { invitations, mail, sample, reminder };
}

export function previewInvitationMail(deps: DashboardDeps) {
  return async function previewInvitationMail(ctx: Context): Promise<void> {
    const { invitations, mail, sample, reminder } = await renderPreview(deps, ctx);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = {
      language: mail.language,
      kind: reminder ? 'reminder' : 'invitation',
      subject: mail.subject,
      from: `${mail.fromName} <${deps.config.smtpFrom.address}>`,
      html: mail.html,
      text: mail.text,
      product: sample ? { id: sample.id, name: sample.name } : null,
      mail: { configured: invitations.mails },
    };
  };
}

/**
 * The mail's HTML as a document of its own, for the page's `sandbox=""`
 * frame. Not `srcdoc`: a srcdoc document inherits the dashboard's Content
 * Security Policy, which refuses the inline styles every mail is written
 * with, so the preview would not look like the mail. Its own policy lets
 * styles and https pictures in and nothing else (no script, no form, no
 * connection), sandboxes it even when opened on its own, and lets only the
 * dashboard frame it.
 */
export function previewInvitationMailHtml(deps: DashboardDeps) {
  return async function previewInvitationMailHtml(ctx: Context): Promise<void> {
    const { mail } = await renderPreview(deps, ctx);
    ctx.set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; img-src https: data:; sandbox; frame-ancestors 'self'; base-uri 'none'; form-action 'none'");
    ctx.set('X-Frame-Options', 'SAMEORIGIN');
    ctx.set('Cache-Control', 'no-store');
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = mail.html;
  };
}
