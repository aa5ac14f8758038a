/**
 * Invitations by mail (SMTP_URL): a real SMTP server on loopback (the
 * smtp-server package) receives the mail; the inviter's answer says where it
 * went and holds no link; the test follows the link from the mail and the
 * invitee joins. A relay that refuses is a 502 to the inviter and leaves no
 * open invitation; neither the link nor its token is ever logged.
 */
import { readFileSync } from 'node:fs';
import { Agent } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../config.ts';
import { createLogger } from '../logger.ts';
import { startTestService, type TestService } from '../test/harness.ts';
import { Client } from './test-client.ts';

const PASSWORD = 'a long enough password';

interface Received {
  from: string;
  to: string[];
  raw: string;
}

describe('SMTP_URL', () => {
  it('takes smtp:// and smtps:// URLs, is null when unset, and refuses anything else without repeating the value', () => {
    expect(loadConfig({}).smtpUrl).toBeNull();
    expect(loadConfig({ SMTP_URL: 'smtps://user:secret@mail.example.com:465' }).smtpUrl).toBe('smtps://user:secret@mail.example.com:465');
    for (const value of ['http://user:secret@mail.example.com', 'not a url secret']) {
      let error: unknown;
      try {
        loadConfig({ SMTP_URL: value });
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toMatch(/^SMTP_URL: /);
      expect((error as Error).message).not.toContain('secret');
    }
  });
});

describe('invitations mailed through SMTP_URL', () => {
  let t: TestService;
  let agent: Agent;
  let smtp: SMTPServer;
  const inbox: Received[] = [];
  const logLines: string[] = [];
  /** Recipients the relay refuses (a full mailbox, a relay that says no). */
  const refuse = new Set<string>();

  beforeAll(async () => {
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onRcptTo(address, _session, callback) {
        if (refuse.has(address.address.toLowerCase())) return callback(new Error('550 mailbox unavailable'));
        callback();
      },
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          inbox.push({ from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', to: session.envelope.rcptTo.map((r) => r.address), raw: Buffer.concat(chunks).toString('utf8') });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    const port = (smtp.server.address() as AddressInfo).port;
    t = await startTestService({
      redis: false,
      env: { SMTP_URL: `smtp://127.0.0.1:${port}`, LOG_LEVEL: 'debug' },
      logger: createLogger('debug', { write: (chunk: string) => void logLines.push(chunk) }),
    });
    agent = new Agent({ ca: readFileSync(join(t.dataDir, 'tls-cert.pem'), 'utf8'), keepAlive: true, servername: 'localhost' });
  });
  afterAll(async () => {
    agent?.destroy();
    await t?.close();
    await new Promise<void>((resolve) => smtp?.close(() => resolve()));
  });

  it('mails the link to the invitee only; the inviter is told where it went; the link from the mail works', async () => {
    const { orgId } = await t.org('growth');
    expect((await t.admin('POST', '/admin/users', { orgId, email: 'owner@mail.example', role: 'owner', password: PASSWORD })).status).toBe(201);
    const owner = new Client(t, agent);
    expect((await owner.signIn('owner@mail.example', PASSWORD)).status).toBe(200);

    const invited = await owner.send('POST', '/dashboard/api/invitations', { email: 'Invitee@Mail.example', role: 'admin' });
    expect(invited.status).toBe(201);
    expect(invited.body).toEqual({ email: 'Invitee@Mail.example', role: 'admin', expiresAt: expect.any(String), mailed: true });
    expect(JSON.stringify(invited.body)).not.toMatch(/invitation#/);

    expect(inbox).toHaveLength(1);
    const mail = inbox[0]!;
    expect(mail.to.map((a) => a.toLowerCase())).toEqual(['invitee@mail.example']);
    expect(mail.from).toBe('no-reply@localhost');
    expect(mail.raw).toMatch(/^Subject: You are invited to Org \w+ on Review Proof/m);
    // Quoted-printable may fold long lines: unfold before reading the link.
    const body = mail.raw.replace(/=\r?\n/g, '');
    const link = /https:\/\/\S+\/dashboard\/invitation#([A-Za-z0-9_-]{43})/.exec(body);
    expect(link, body).not.toBeNull();
    const token = link![1]!;
    expect(body).toContain('owner@mail.example invites you to join');

    // Following the link from the mail: lookup, then accept with a new password.
    const guest = new Client(t, agent);
    await guest.start();
    expect((await guest.send('POST', '/dashboard/api/invitations/lookup', { token })).body).toMatchObject({ email: 'Invitee@Mail.example', role: 'admin' });
    const accepted = await guest.send('POST', '/dashboard/api/invitations/accept', { token, password: PASSWORD });
    expect(accepted.status).toBe(200);
    expect(accepted.body).toMatchObject({ user: { email: 'Invitee@Mail.example', role: 'admin' }, org: { id: orgId } });

    // The token is in no log line (the request log, the audit, anything).
    expect(logLines.length).toBeGreaterThan(0);
    expect(logLines.join('\n')).not.toContain(token);
  });

  it('answers 502 mail_failed when the relay refuses, and leaves no open invitation behind', async () => {
    const { orgId } = await t.org('growth');
    expect((await t.admin('POST', '/admin/users', { orgId, email: 'owner2@mail.example', role: 'owner', password: PASSWORD })).status).toBe(201);
    const owner = new Client(t, agent);
    expect((await owner.signIn('owner2@mail.example', PASSWORD)).status).toBe(200);
    refuse.add('bounce@mail.example');
    const before = inbox.length;

    const failed = await owner.send('POST', '/dashboard/api/invitations', { email: 'bounce@mail.example', role: 'member' });
    expect([failed.status, failed.body.error]).toEqual([502, 'mail_failed']);
    expect(failed.body.message).toMatch(/could not be mailed to bounce@mail\.example.*No invitation was made/);
    expect(inbox.length).toBe(before);
    const members = await owner.send('GET', '/dashboard/api/members');
    expect(members.body.invitations).toEqual([]);
    // Stored, but void for good: nothing anyone holds can accept it.
    const stored = await t.service.store.people.invitations.listByOrg(orgId);
    expect(stored.map((i) => [i.email, i.acceptedAt, i.voidedAt !== null])).toEqual([['bounce@mail.example', null, true]]);
    const audit = await t.service.store.people.audit.listByOrg(orgId, 50);
    expect(audit.some((r) => r.action === 'member.invited')).toBe(false);

    // Once the relay takes it, inviting again works.
    refuse.delete('bounce@mail.example');
    expect((await owner.send('POST', '/dashboard/api/invitations', { email: 'bounce@mail.example', role: 'member' })).status).toBe(201);
    expect(inbox.length).toBe(before + 1);
  });
});
