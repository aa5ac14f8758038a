/**
 * Invitations by mail (CONTRACT §1 `SMTP_URL`, §6): with a relay configured,
 * the link goes to the invitee's mailbox only; the inviter is told where it
 * was sent, never the link. Nodemailer speaks SMTP (STARTTLS when the relay
 * offers it, TLS from the start with smtps://). The URL, which can hold the
 * relay's password, and the link are never logged.
 */
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

export function createMailer(smtpUrl: string, publicUrl: string): Mailer {
  const options: SMTPTransport.Options = {
    url: smtpUrl,
    // An unreachable or silent relay is an answer to the inviter within seconds, not a hung request.
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 20_000,
  };
  const transport = nodemailer.createTransport(options);
  const from = `Review Proof <no-reply@${new URL(publicUrl).hostname}>`;
  return {
    async sendInvitation(mail) {
      const { subject, text } = invitationText(mail);
      await transport.sendMail({ from, to: mail.to, subject, text });
    },
  };
}
