/**
 * SMTP_URL's encryption (CONTRACT §1): `smtp://` upgrades with STARTTLS, and a
 * relay that does not offer it is refused before the relay's password or any
 * mail is sent, except a loopback relay; `smtps://` is TLS from the start.
 * Real relays (the smtp-server package) on 127.0.0.1: tests may only reach
 * loopback, so the relay that stands for a remote one is the same sink with the
 * loopback exemption turned off (`isLoopback`), the decision `isLoopbackRelay`
 * makes from the URL, tested on its own.
 */
import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testCert, type TestCert } from '../webhooks/test-receiver.ts';
import { createMailer, isLoopbackRelay, smtpOptions, type InvitationMail } from './mail.ts';

describe('isLoopbackRelay', () => {
  it.each(['localhost', 'LOCALHOST', 'localhost.', '127.0.0.1', '127.1.2.3', '[::1]', '::1', '[::ffff:127.0.0.1]'])('exempts %s', (host) => {
    expect(isLoopbackRelay(host)).toBe(true);
  });
  // Decided from the URL, never from DNS: a name is not exempt, whatever it resolves to today.
  it.each(['mail.example.com', 'localhost.example.com', '127.0.0.1.nip.io', 'mail.localhost.example', '10.0.0.1', '192.168.1.10', '0.0.0.0', '[::]', '[fe80::1]', '[::127.0.0.1]', '169.254.169.254'])('does not exempt %s', (host) => {
    expect(isLoopbackRelay(host)).toBe(false);
  });
});

describe('smtpOptions', () => {
  it('requires STARTTLS on smtp:// except to a loopback relay; smtps:// is TLS from the start', () => {
    expect(smtpOptions('smtp://user:p%40ss@mail.example.com')).toMatchObject({ host: 'mail.example.com', port: 587, secure: false, requireTLS: true, auth: { user: 'user', pass: 'p@ss' } });
    expect(smtpOptions('smtp://mail.example.com:25')).toMatchObject({ port: 25, secure: false, requireTLS: true });
    expect(smtpOptions('smtps://mail.example.com')).toMatchObject({ port: 465, secure: true, requireTLS: false });
    expect(smtpOptions('smtp://127.0.0.1:2525')).toMatchObject({ host: '127.0.0.1', port: 2525, secure: false, requireTLS: false });
    expect(smtpOptions('smtp://[::1]:2525')).toMatchObject({ host: '::1', requireTLS: false });
    expect(smtpOptions('smtp://localhost')).toMatchObject({ requireTLS: false });
    expect(smtpOptions('smtp://127.0.0.1:2525', () => false)).toMatchObject({ requireTLS: true });
  });

  it('lets nothing in the URL\'s query turn encryption off', () => {
    const options = smtpOptions('smtp://mail.example.com?ignoreTLS=true&requireTLS=false&secure=false&opportunisticTLS=true');
    expect(options).toMatchObject({ requireTLS: true, secure: false });
    expect(options).not.toHaveProperty('ignoreTLS');
    expect(options).not.toHaveProperty('opportunisticTLS');
    expect(options).not.toHaveProperty('url');
  });
});

interface Seen {
  connections: number;
  auths: { user: string; secure: boolean }[];
  mailFrom: string[];
  mails: { to: string[]; secure: boolean; raw: string }[];
}

interface Relay {
  url(credentials?: string): string;
  seen: Seen;
  close(): Promise<void>;
}

/** A real relay on 127.0.0.1 that takes AUTH PLAIN/LOGIN and records what reached it; `cert`: it offers STARTTLS. */
async function startRelay(cert: TestCert | null): Promise<Relay> {
  const seen: Seen = { connections: 0, auths: [], mailFrom: [], mails: [] };
  const options: SMTPServerOptions = {
    logger: false,
    authOptional: true,
    // The plain relay takes a password in clear (as a careless relay would): only our refusal protects it.
    allowInsecureAuth: true,
    ...(cert ? { key: cert.key, cert: cert.cert } : { disabledCommands: ['STARTTLS'] }),
    onConnect(_session, callback) {
      seen.connections++;
      callback();
    },
    onAuth(auth, session, callback) {
      seen.auths.push({ user: auth.username ?? '', secure: session.secure });
      callback(null, { user: auth.username });
    },
    onMailFrom(address, _session, callback) {
      seen.mailFrom.push(address.address);
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        seen.mails.push({ to: session.envelope.rcptTo.map((r) => r.address), secure: session.secure, raw: Buffer.concat(chunks).toString('utf8') });
        callback();
      });
    },
  };
  const server = new SMTPServer(options);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: (credentials = '') => `smtp://${credentials ? `${credentials}@` : ''}127.0.0.1:${port}`,
    seen,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const invitation = (to: string): InvitationMail => ({
  to,
  organization: 'Acme',
  role: 'admin',
  inviter: 'owner@acme.example',
  link: 'https://localhost:8443/dashboard/invitation#secret-invitation-token-0123456789abcdefghijk',
  expiresAt: '2026-12-05T10:00:00.000Z',
});

describe('mail to an SMTP_URL relay', () => {
  let cert: TestCert;
  let plain: Relay;
  let starttls: Relay;
  beforeAll(async () => {
    cert = await testCert();
    plain = await startRelay(null);
    starttls = await startRelay(cert);
  });
  afterAll(async () => {
    await plain?.close();
    await starttls?.close();
  });

  it('refuses a relay that offers no STARTTLS: neither the relay password nor the mail is sent', async () => {
    const before = plain.seen.connections;
    const mailer = createMailer(plain.url('relay-user:relay-password'), 'https://localhost:8443', { isLoopback: () => false });
    await expect(mailer.sendInvitation(invitation('invitee@mail.example'))).rejects.toThrow(/STARTTLS/);
    // The relay was reached (the refusal is ours, not a connection failure), and nothing crossed it.
    expect(plain.seen.connections).toBeGreaterThan(before);
    expect(plain.seen.auths).toEqual([]);
    expect(plain.seen.mailFrom).toEqual([]);
    expect(plain.seen.mails).toEqual([]);
  });

  it('sends through a loopback relay without STARTTLS (the exemption, decided from the URL)', async () => {
    const [auths, mails] = [plain.seen.auths.length, plain.seen.mails.length];
    const mailer = createMailer(plain.url('relay-user:relay-password'), 'https://localhost:8443');
    await mailer.sendInvitation(invitation('local@mail.example'));
    expect(plain.seen.auths.slice(auths)).toEqual([{ user: 'relay-user', secure: false }]);
    expect(plain.seen.mails.slice(mails).map((m) => [m.to, m.secure])).toEqual([[['local@mail.example'], false]]);
  });

  it('upgrades with STARTTLS before the password and the mail when the relay offers it', async () => {
    const mailer = createMailer(starttls.url('relay-user:relay-password'), 'https://localhost:8443', { isLoopback: () => false, tls: { ca: cert.cert, servername: 'localhost' } });
    await mailer.sendInvitation(invitation('remote@mail.example'));
    expect(starttls.seen.auths).toEqual([{ user: 'relay-user', secure: true }]);
    expect(starttls.seen.mails.map((m) => [m.to, m.secure])).toEqual([[['remote@mail.example'], true]]);
    expect(starttls.seen.mails[0]!.raw.replace(/=\r?\n/g, '')).toContain('secret-invitation-token-0123456789abcdefghijk');
  });
});
