/**
 * A local SMTP relay for the mail tests (the smtp-server package on
 * 127.0.0.1, no TLS, no AUTH): it keeps what it accepted, in order, and
 * refuses the recipients it is told to refuse with the reply it is given.
 */
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { parseMime, type MimePart } from './test-mime.ts';

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
  mail: MimePart;
}

export interface SmtpSink {
  url: string;
  inbox: ReceivedMail[];
  /** Recipient (lower case) → the error text the relay answers to RCPT TO (e.g. `550 5.1.1 mailbox unavailable`). */
  refuse: Map<string, string>;
  /**
   * Set: the relay's answer to DATA waits for it (after the mail is kept in
   * `held`): resolve it with nothing to accept the mail, or with an error
   * text (`554 5.7.1 …`) to refuse it.
   */
  answerData: ((mail: ReceivedMail) => Promise<string | void>) | null;
  /**
   * Set: the relay's answer to MAIL FROM (a refusal of the relay's own, not the recipient's: `550 5.4.5 Daily
   * user sending limit exceeded`, `553 sender address rejected`), or a wait before it accepts (ms).
   */
  answerMailFrom: string | number | null;
  /** Set: a wait (ms) before the relay answers each RCPT TO (a relay slow at every step). */
  answerRcptTo: number | null;
  /** Mails whose DATA is waiting for `answerData`. */
  held: ReceivedMail[];
  close(): Promise<void>;
}

export async function startSmtpSink(): Promise<SmtpSink> {
  const inbox: ReceivedMail[] = [];
  const refuse = new Map<string, string>();
  const held: ReceivedMail[] = [];
  const sink = { answerData: null as SmtpSink['answerData'], answerMailFrom: null as SmtpSink['answerMailFrom'], answerRcptTo: null as SmtpSink['answerRcptTo'] };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onMailFrom(_address, _session, callback) {
      const answer = sink.answerMailFrom;
      if (answer === null) return callback();
      if (typeof answer === 'number') return void setTimeout(() => callback(), answer);
      callback(Object.assign(new Error(answer.replace(/^\d{3}\s*/, '')), { responseCode: Number(/^(\d{3})/.exec(answer)?.[1] ?? 550) }));
    },
    onRcptTo(address, _session, callback) {
      const reason = refuse.get(address.address.toLowerCase());
      if (reason === undefined) return sink.answerRcptTo === null ? callback() : void setTimeout(() => callback(), sink.answerRcptTo);
      const code = Number(/^(\d{3})/.exec(reason)?.[1] ?? 550);
      callback(Object.assign(new Error(reason.replace(/^\d{3}\s*/, '')), { responseCode: code }));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const received = { from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', to: session.envelope.rcptTo.map((r) => r.address), raw, mail: parseMime(raw) };
        if (!sink.answerData) {
          inbox.push(received);
          return callback();
        }
        held.push(received);
        void sink.answerData(received).then((refusal) => {
          held.splice(held.indexOf(received), 1);
          if (!refusal) {
            inbox.push(received);
            return callback();
          }
          callback(Object.assign(new Error(refusal.replace(/^\d{3}\s*/, '')), { responseCode: Number(/^(\d{3})/.exec(refusal)?.[1] ?? 554) }));
        });
      });
    },
  });
  // A client that goes away mid-session (a sender killed by a test) is its own business, not the test's error.
  server.on('error', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return Object.assign(sink, { url: `smtp://127.0.0.1:${port}`, inbox, refuse, held, close: () => new Promise<void>((resolve) => server.close(() => resolve())) });
}
