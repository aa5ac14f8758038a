/**
 * The review page's one mail, the confirmation (CONTRACT §13): rendered here
 * from data, HTML and plain text, in the reviewer's language (the page's),
 * then sent through the relay of SMTP_URL with the same rules as the
 * dashboard's mails (api/dashboard/mail.ts: STARTTLS required except on
 * loopback). Sending is a job (CollectService.mailHandler); this module only
 * renders and hands over. No tracking pixel, no shortened link.
 */
import nodemailer from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';
import { smtpOptions, type MailerOptions } from '../dashboard/mail.ts';
import { escapeHtml, fill, pageMessages } from './words.ts';

export interface ConfirmationMail {
  to: string;
  language: string;
  organization: string;
  /** The product's name, or the organization's. */
  subject: string;
  rating: number;
  content: string;
  confirmUrl: string;
  manageUrl: string;
}

export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

export function renderConfirmation(mail: ConfirmationMail): RenderedMail {
  const { m, stars, lang, dir } = pageMessages(mail.language);
  const subject = fill(m.mailSubject, { org: mail.organization });
  const intro = fill(m.mailIntro, { s: mail.subject });
  const starsText = fill(stars, { n: String(mail.rating) });
  const text = [intro, '', mail.confirmUrl, '', `${starsText}`, mail.content, '', m.mailManage, mail.manageUrl, '', m.mailIgnore, ''].join('\n');
  const e = escapeHtml;
  const html = `<!doctype html>
<html lang="${e(lang)}" dir="${dir}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${e(subject)}</title></head>
<body style="margin:0;padding:24px;background:#f6f7f9;color:#111827;font:16px/1.5 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif">
<div style="max-width:560px;margin:0 auto;background:#ffffff;border:1px solid #e2e5ea;border-radius:12px;padding:24px">
<p style="margin:0 0 20px">${e(intro)}</p>
<p style="margin:0 0 24px"><a href="${e(mail.confirmUrl)}" style="display:inline-block;background:#4338ca;color:#ffffff;text-decoration:none;font-weight:600;padding:12px 20px;border-radius:8px">${e(m.confirmButton)}</a></p>
<p style="margin:0 0 4px;color:#b45309;font-size:20px" aria-label="${e(starsText)}">${'★'.repeat(mail.rating)}${'☆'.repeat(5 - mail.rating)}</p>
<blockquote style="margin:0 0 24px;padding:0 0 0 12px;border-left:3px solid #e2e5ea;color:#374151;white-space:pre-wrap">${e(mail.content)}</blockquote>
<p style="margin:0 0 4px;color:#4b5563">${e(m.mailManage)}</p>
<p style="margin:0 0 20px;word-break:break-all"><a href="${e(mail.manageUrl)}" style="color:#4338ca">${e(mail.manageUrl)}</a></p>
<p style="margin:0;color:#6b7280;font-size:14px">${e(m.mailIgnore)}</p>
</div>
</body>
</html>
`;
  return { subject, text, html };
}

/** A relay for the confirmation mails (SMTP_URL), sending `From: <organization> <no-reply@PUBLIC_URL's host>`. */
export function createCollectMailer(smtpUrl: string, publicUrl: string, options: MailerOptions = {}): { send(mail: ConfirmationMail): Promise<void> } {
  const transport = nodemailer.createTransport({ ...smtpOptions(smtpUrl, options.isLoopback), ...(options.tls && { tls: options.tls }) } as SMTPTransport.Options);
  const address = `no-reply@${new URL(publicUrl).hostname}`;
  return {
    async send(mail) {
      const { subject, text, html } = renderConfirmation(mail);
      await transport.sendMail({ from: { name: mail.organization, address }, to: mail.to, subject, text, html });
    },
  };
}
