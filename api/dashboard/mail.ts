/**
 * Invitations by mail (CONTRACT §1 `SMTP_URL`, §6): with a relay configured,
 * the link goes to the invitee's mailbox only; the inviter is told where it
 * was sent, never the link. Nodemailer speaks SMTP. `smtps://` is TLS from the
 * start; `smtp://` must upgrade with STARTTLS, and a relay that does not offer
 * it is refused before anything (the relay's password, a link) is sent, except
 * a loopback relay (a local MTA on this machine: nothing crosses a network).
 * The URL, which can hold the relay's password, and the link are never logged.
 */
import { BlockList, isIP } from 'node:net';
import nodemailer from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';

export interface InvitationMail {
  to: string;
  organization: string;
  role: string;
  inviter: string;
  link: string;
  expiresAt: string;
}

export interface Mailer {
  /** Resolves once the relay accepted the message; throws when it refused it or could not be reached. */
  sendInvitation(mail: InvitationMail): Promise<void>;
}

const ROLE_NAMES: Record<string, string> = { owner: 'Owner', admin: 'Admin', member: 'Member' };

/** The mail text: who invites, to which organization and role, the link, until when. */
export function invitationText(mail: InvitationMail): { subject: string; text: string } {
  const until = new Date(mail.expiresAt).toUTCString();
  return {
    subject: `You are invited to ${mail.organization} on Review Proof`,
    text: [
      `${mail.inviter} invites you to join ${mail.organization} on Review Proof as ${ROLE_NAMES[mail.role] ?? mail.role}.`,
      '',
      'Open this link to accept:',
      mail.link,
      '',
      `It works once, until ${until}. If you already have a Review Proof account with this email, you sign in with its password; otherwise you choose one.`,
      'If you did not expect this invitation, ignore this mail.',
      '',
    ].join('\n'),
  };
}

/** 127.0.0.0/8 and ::1 (also as ::ffff:127.x.y.z; not the deprecated IPv4-compatible ::127.x.y.z). */
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/**
 * A relay on this machine: `localhost` or a loopback address written in the
 * URL. Decided from the URL, never from DNS: a name that resolves to a
 * loopback address today may resolve elsewhere tomorrow, so it is not exempt.
 */
export function isLoopbackRelay(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase();
  if (host === 'localhost') return true;
  const family = isIP(host);
  return family !== 0 && LOOPBACK.check(host, family === 6 ? 'ipv6' : 'ipv4');
}

/**
 * Nodemailer's connection options for SMTP_URL. Built from the URL's parts
 * rather than handed the URL, so that nothing in its query string
 * (`?ignoreTLS=true`, `?requireTLS=false`) can turn encryption off.
 */
export function smtpOptions(smtpUrl: string, isLoopback: (hostname: string) => boolean = isLoopbackRelay): SMTPTransport.Options {
  const url = new URL(smtpUrl);
  const secure = url.protocol === 'smtps:';
  const user = decodeURIComponent(url.username);
  const pass = decodeURIComponent(url.password);
  return {
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port ? Number(url.port) : secure ? 465 : 587,
    secure,
    // smtp://: STARTTLS or nothing is sent (nodemailer refuses the relay before AUTH and MAIL FROM).
    requireTLS: !secure && !isLoopback(url.hostname),
    ...((user || pass) && { auth: { user, pass } }),
    // An unreachable or silent relay is an answer to the inviter within seconds, not a hung request.
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 20_000,
  };
}

export interface MailerOptions {
  /** Which relays may be spoken to without TLS; tests turn the loopback exemption off. */
  isLoopback?: (hostname: string) => boolean;
  /** Extra TLS settings for the relay connection (tests trust their own relay's certificate). */
  tls?: SMTPTransport.Options['tls'];
}

export function createMailer(smtpUrl: string, publicUrl: string, options: MailerOptions = {}): Mailer {
  const transport = nodemailer.createTransport({ ...smtpOptions(smtpUrl, options.isLoopback), ...(options.tls && { tls: options.tls }) });
  const from = `Review Proof <no-reply@${new URL(publicUrl).hostname}>`;
  return {
    async sendInvitation(mail) {
      const { subject, text } = invitationText(mail);
      await transport.sendMail({ from, to: mail.to, subject, text });
    },
  };
}
