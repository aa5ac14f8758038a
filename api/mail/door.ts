/**
 * The mail door of review invitations and reminders (CONTRACT §14): every
 * such mail leaves through `send`, which
 * - waits for a sending slot (slots.ts: SMTP_RATE_PER_MINUTE across all
 *   instances, fair between organizations; each organization's mails leave in
 *   the order they were handed in);
 * - speaks to SMTP_URL with the same connection rules as the other mails
 *   (api/dashboard/mail.ts `smtpOptions`: STARTTLS required except to a
 *   loopback relay, nothing in the URL's query can turn TLS off);
 * - resolves only once the relay accepted the message (its 250 to DATA), so
 *   the caller marks the invitation `sent` only then, and rejects with
 *   `MailNotSent` otherwise. Only a refusal of the recipient (5xx to RCPT TO)
 *   whose enhanced code is about the address or mailbox, or of this message's
 *   content (5.6.x to DATA: `inviteesFault`), is `permanent`, with fixed words
 *   and the codes as `reason` (the caller records it as `failed`,
 *   `lastError`); any other error (AUTH, MAIL FROM, the greeting, a
 *   4xx, 5.7.x relay access denied or sender not verified, no connection) is
 *   the relay's, not the invitee's: not permanent, with a fixed reason (the
 *   relay's text goes to the operator's log only), and the caller tries again.
 * - waits for the relay's answer to the end of the message as RFC 5321
 *   §4.5.3.2.6 says (DATA_TIMEOUT_MS, 10 minutes: a relay scanning the mail
 *   under load answers late), and for the whole transaction at most
 *   MAIL_DEADLINE_MS (20 minutes, below the sender's 30-minute claim: a relay
 *   slow at every step is cut off there). No answer even then, after the
 *   whole message was handed over: the outcome is unknown (`unknown`, the
 *   relay may have kept it); the caller decides whether to send it again.
 *   Before it was handed over: unreachable, tried again.
 * - asks the mail's `ready()` (if any) once its slot is granted, right before
 *   the relay: false drops it unsent (`send` resolves null), as does its
 *   `signal` aborted while it waits for the slot;
 * A crash between the relay's answer and the caller's write can send that one
 * mail twice; nothing here retries on its own, so never more.
 *
 * The sender is SMTP_FROM's address with the organization's name (or its
 * sender name setting) as display name; the recipient is one address, checked
 * here, and only the envelope's.
 */
import nodemailer, { type Transporter } from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';
import type { Logger } from '../logger.ts';
import { smtpOptions, type MailerOptions } from '../dashboard/mail.ts';
import type { MailSlots } from './slots.ts';

export interface OutgoingMail {
  /** Whose mail it is: the unit of fairness. */
  organizationId: string;
  /** One address. */
  to: string;
  /** The sender's display name (renderInvitation's `fromName`). */
  fromName: string;
  subject: string;
  text: string;
  html: string;
  headers: Record<string, string>;
  /**
   * Asked once the mail's slot (and a connection) was granted, right before
   * it goes to the relay: false (or a mail whose `signal` was aborted) drops
   * it unsent and `send` resolves null. The invitation sender checks here, at
   * the last moment, that the invitation is still its own and still to be
   * mailed (CONTRACT §14: nothing after a cancellation or an unsubscribe).
   */
  ready?: () => Promise<boolean>;
  /** Aborted: a mail still waiting for its slot is dropped unsent (`send` resolves null). */
  signal?: AbortSignal;
}

export interface Accepted {
  /** The Message-ID the mail was sent with. */
  messageId: string;
  /** The relay's answer to DATA (`250 …`). */
  response: string;
}

/**
 * The relay refused the mail, or could not be reached: `reason` is its answer, or UNREACHABLE when it never
 * answered (never the relay's URL, host or port: it reaches the organizations as `lastError`).
 */
export class MailNotSent extends Error {
  constructor(
    readonly reason: string,
    /** The relay's reply code, null when it never answered. */
    readonly responseCode: number | null,
    /** The invitee's refusal (`inviteesFault`: this recipient, this message): sending the same mail again will not help. */
    readonly permanent: boolean,
    /** The whole message was handed to the relay and no answer came: it may have been delivered. */
    readonly unknown: boolean = false,
  ) {
    super(`the relay did not accept the mail: ${reason}`);
    this.name = 'MailNotSent';
  }
}

export class MailDoorClosed extends Error {
  constructor() {
    super('the mail door is closed: the mail was not sent');
    this.name = 'MailDoorClosed';
  }
}

export interface MailDoorOptions {
  smtpUrl: string;
  /** SMTP_FROM's address (config.smtpFrom.address). */
  fromAddress: string;
  slots: MailSlots;
  logger?: Logger;
  /** Mails in flight to the relay at once (one connection each, pooled); default 4. */
  concurrency?: number;
  mailer?: MailerOptions;
  /** How long the relay may stay silent (each answer, the end of DATA's included); default DATA_TIMEOUT_MS. Tests shorten it. */
  socketTimeoutMs?: number;
  /** How long one mail may take with the relay in all (its silences added up); default MAIL_DEADLINE_MS. Tests shorten it. */
  deadlineMs?: number;
}

/** RFC 5321 §4.5.3.2.6: a client waits 10 minutes for the answer to the end of the message (DATA termination). */
export const DATA_TIMEOUT_MS = 10 * 60_000;

/**
 * How long one mail may take with the relay in all, from the connection to the answer to the end of the message:
 * past it the transaction is aborted (its connection closed), as after one silence of DATA_TIMEOUT_MS. Each
 * silence alone is bounded by DATA_TIMEOUT_MS, but a relay slow at every step could take their sum (an hour and
 * more); this keeps a mail's time with the relay below the sender's claim (LEASE_MS, 30 minutes), so no other run
 * takes the invitation while its mail may still reach the relay.
 */
export const MAIL_DEADLINE_MS = 20 * 60_000;

/** The reason given when the relay never answered (its connection's error is for the operator's log only). */
export const UNREACHABLE = 'the mail relay could not be reached';

/** The reason given when the relay answered but did not take the mail for a reason of its own (AUTH, MAIL FROM, 4xx): tried again later. */
export const RELAY_DEFERRED = 'the mail relay did not take the mail now';
/** The reason given when the whole message was handed over and no answer came (the relay may have kept it). */
export const NO_ANSWER = 'the mail relay did not answer after taking the mail';

/**
 * Any address in a text for a log line left out (personal data never reaches a log): every character the
 * invitation's email check (api/invitations/validate.ts) accepts in an address, the apostrophe included.
 */
export const withoutAddresses = (text: string): string => text.replace(/[^\s<>"(),;:[\]\\]+@[^\s<>"(),;:[\]\\]+/g, '<address>');

/**
 * Enhanced status codes (RFC 3463) that, answered to RCPT TO, are about the recipient's own address or mailbox:
 * bad mailbox (5.1.1), bad system (5.1.2), bad syntax (5.1.3), moved (5.1.6), no mail accepted (5.1.10, a null
 * MX), mailbox disabled (5.2.1), mailbox full (5.2.2). Not 5.1.0, 5.1.7 or 5.1.8 (the sender's address, which is
 * the operator's), nor 5.2.0 (Microsoft 365's account blocks and quotas).
 */
const RECIPIENT_CODES = new Set(['5.1.1', '5.1.2', '5.1.3', '5.1.6', '5.1.10', '5.2.1', '5.2.2']);

/** The first enhanced status code anywhere in a relay's answer (qmail puts it last: `553 … (#5.7.1)`), or null. */
export function enhancedCode(response: string): string | null {
  return /(?:^|[\s(#])([245]\.\d{1,3}\.\d{1,3})(?=$|[\s).,;:])/.exec(response.replace(/^\d{3}[ -]/, ' '))?.[1] ?? null;
}

/**
 * Whether a refusal is the invitee's (permanent for this invitation) rather than the relay's or its operator's
 * (tried again): a 5xx to RCPT TO whose enhanced code is one of RECIPIENT_CODES, or a 5xx to DATA whose enhanced
 * code is about this message's content (5.6.x). Anything else is the relay's: 5.7.x (relay access denied, a
 * sender not verified, a policy), 5.3.x, 5.4.x, 5.5.x, 5.2.0, the sender's address (5.1.0, 5.1.7, 5.1.8), and
 * every answer without an enhanced code (Exim's `550 relay not permitted` and SES's `554 Message rejected: Email
 * address is not verified` say nothing about whose it is). Tried again, a real invitee's bare refusal becomes
 * `failed` when the retries end (30 days): the price of never failing every shop's invitations for a relay's fault.
 */
export function inviteesFault(response: string, code: number | null, command: string | undefined): boolean {
  if (code === null || code < 500 || code > 599) return false;
  const enhanced = enhancedCode(response);
  if (enhanced === null) return false;
  if (command === 'RCPT TO') return RECIPIENT_CODES.has(enhanced);
  if (command === 'DATA') return enhanced.startsWith('5.6.');
  return false;
}

/** The reason a permanent refusal is recorded with (`lastError`): fixed words and the codes, never the relay's text. */
export function refusalReason(code: number | null, response: string, command: string | undefined): string {
  const codes = `${code ?? ''} ${enhancedCode(response) ?? ''}`.trim();
  return command === 'DATA' ? `the recipient's mail server refused this mail (${codes})` : `the recipient's mail server refused the address (${codes})`;
}

/** One address, nothing a mail library could read as a list, a display name or a header. */
const ADDRESS = /^[^\s@<>,;:"()[\]\\]{1,64}@[^\s@<>,;:"()[\]\\]{1,255}$/;

interface Pending {
  mail: OutgoingMail;
  resolve(value: Accepted | null): void;
  reject(err: Error): void;
}

export class MailDoor {
  readonly #transport: Transporter<SMTPTransport.SentMessageInfo>;
  readonly #from: string;
  readonly #slots: MailSlots;
  readonly #logger: Logger | undefined;
  readonly #concurrency: number;
  readonly #deadlineMs: number;
  readonly #queues = new Map<string, Pending[]>();
  #inFlight = 0;
  readonly #freed: (() => void)[] = [];
  readonly #timers = new Set<{ timer: NodeJS.Timeout; wake(): void }>();
  readonly #pumps = new Set<Promise<void>>();
  #closed = false;

  constructor(options: MailDoorOptions) {
    this.#concurrency = options.concurrency ?? 4;
    this.#deadlineMs = options.deadlineMs ?? MAIL_DEADLINE_MS;
    this.#transport = nodemailer.createTransport({
      ...smtpOptions(options.smtpUrl, options.mailer?.isLoopback),
      ...(options.mailer?.tls && { tls: options.mailer.tls }),
      socketTimeout: options.socketTimeoutMs ?? DATA_TIMEOUT_MS,
      pool: true,
      maxConnections: this.#concurrency,
    } as SMTPTransport.Options);
    this.#from = options.fromAddress;
    this.#slots = options.slots;
    this.#logger = options.logger;
    // Marks a mail whose whole message the relay was handed (its stream was read to the end by the connection):
    // a silence after that is an unknown outcome, not an unreachable relay.
    this.#transport.use('stream', (mail, done) => {
      const handed = this.#handing.get(mail.data.headers as object);
      if (handed) {
        mail.message.processFunc((input) => {
          input.once('end', handed);
          return input;
        });
      }
      done();
    });
  }

  /** The mails being delivered (by their headers object, which nodemailer passes on as is) → marks their message handed over. */
  readonly #handing = new WeakMap<object, () => void>();

  /**
   * Resolves once the relay accepted the mail; rejects with MailNotSent (refused, unreachable) or MailDoorClosed.
   * A mail with `ready` or `signal` resolves null when it was dropped unsent (see OutgoingMail).
   */
  send(mail: OutgoingMail & { ready?: undefined; signal?: undefined }): Promise<Accepted>;
  send(mail: OutgoingMail): Promise<Accepted | null>;
  send(mail: OutgoingMail): Promise<Accepted | null> {
    if (this.#closed) return Promise.reject(new MailDoorClosed());
    if (!ADDRESS.test(mail.to)) return Promise.reject(new MailNotSent('not one valid recipient address', null, true));
    if (mail.signal?.aborted) return Promise.resolve(null);
    return new Promise<Accepted | null>((resolve, reject) => {
      const item: Pending = { mail, resolve, reject };
      // Withdrawn while it waits for its slot: out of the queue, unsent.
      mail.signal?.addEventListener(
        'abort',
        () => {
          const waiting = this.#queues.get(mail.organizationId);
          const at = waiting?.indexOf(item) ?? -1;
          if (at < 0) return;
          waiting!.splice(at, 1);
          resolve(null);
        },
        { once: true },
      );
      const queue = this.#queues.get(mail.organizationId);
      if (queue) return void queue.push(item);
      this.#queues.set(mail.organizationId, [item]);
      const pump = this.#pump(mail.organizationId);
      this.#pumps.add(pump);
      void pump.finally(() => this.#pumps.delete(pump));
    });
  }

  /** Mails waiting for a slot in this instance (of one organization, or all). */
  queued(organizationId?: string): number {
    if (organizationId !== undefined) return this.#queues.get(organizationId)?.length ?? 0;
    let n = 0;
    for (const queue of this.#queues.values()) n += queue.length;
    return n;
  }

  /** Stops taking mail; what waits for a slot is rejected (MailDoorClosed), what is with the relay finishes. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const t of this.#timers) t.wake();
    for (const wake of this.#freed.splice(0)) wake();
    await Promise.all(this.#pumps);
    while (this.#inFlight > 0) await new Promise<void>((resolve) => this.#freed.push(resolve));
    this.#transport.close();
  }

  async #pump(organizationId: string): Promise<void> {
    const queue = this.#queues.get(organizationId)!;
    try {
      while (queue.length > 0 && !this.#closed) {
        // A connection first, then a slot: a slot taken while every connection is busy would be wasted.
        while (this.#inFlight >= this.#concurrency && !this.#closed) await new Promise<void>((resolve) => this.#freed.push(resolve));
        if (this.#closed) break;
        let wait: number;
        try {
          wait = await this.#slots.take(organizationId);
        } catch (err) {
          this.#logger?.warn({ err: (err as Error).message }, 'mail: the sending slots cannot be reached; waiting');
          wait = 1000;
        }
        if (wait > 0) {
          await this.#sleep(wait);
          continue;
        }
        const item = queue.shift();
        // Its last mail was withdrawn while the slot was asked for.
        if (!item) break;
        this.#inFlight++;
        void this.#deliver(item).finally(() => {
          this.#inFlight--;
          this.#freed.shift()?.();
        });
      }
    } finally {
      this.#queues.delete(organizationId);
      for (const item of queue.splice(0)) item.reject(new MailDoorClosed());
      await this.#slots.leave(organizationId).catch(() => undefined);
    }
  }

  async #deliver({ mail, resolve, reject }: Pending): Promise<void> {
    if (mail.signal?.aborted) return resolve(null);
    if (mail.ready) {
      let go: boolean;
      try {
        go = await mail.ready();
      } catch (err) {
        this.#logger?.warn({ err: withoutAddresses((err as Error).message) }, 'mail: the mail could not be checked before sending; not sent');
        return reject(new MailNotSent('the mail could not be checked before sending', null, false));
      }
      // Not to be sent any more (changed since it was handed in): dropped, its slot spent.
      if (!go) return resolve(null);
    }
    const headers = { ...mail.headers };
    let handedOver = false;
    this.#handing.set(headers, () => void (handedOver = true));
    // The whole transaction's deadline: aborting closes the connection delivering this mail (nodemailer's pool),
    // so nothing of it reaches the relay afterwards unless the message was already handed over (then: unknown).
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new Error(`no answer from the mail relay within ${this.#deadlineMs} ms in all`)), this.#deadlineMs);
    try {
      const info = await this.#transport.sendMail({
        from: { name: mail.fromName, address: this.#from },
        to: { name: '', address: mail.to },
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
        headers,
        signal: deadline.signal,
      });
      if (info.rejected.length > 0) throw Object.assign(new Error(info.response), { response: info.response, command: 'RCPT TO', responseCode: Number(/^\d{3}/.exec(info.response)?.[0] ?? 550) });
      resolve({ messageId: info.messageId, response: info.response });
    } catch (err) {
      const e = err as Error & { response?: string; responseCode?: number; command?: string; code?: unknown };
      const code = typeof e.responseCode === 'number' ? e.responseCode : null;
      if (typeof e.response === 'string') {
        // Only the recipient's refusal (RCPT TO) or this message's (DATA) that its enhanced code says is the invitee's.
        if (inviteesFault(e.response, code, e.command)) {
          this.#logger?.info({ err: withoutAddresses(e.response), command: e.command, responseCode: code }, 'mail: the recipient was refused');
          return reject(new MailNotSent(refusalReason(code, e.response, e.command), code, true));
        }
        // Anything else is the relay's (AUTH, MAIL FROM, the greeting, a quota, a 4xx, relay access or an unverified
        // sender at RCPT TO or DATA): its text names the operator's account or network, for the operator's log only;
        // the mail is tried again later.
        this.#logger?.warn({ err: withoutAddresses(e.response), command: e.command, responseCode: code }, 'mail: the mail relay did not take the mail');
        return reject(new MailNotSent(RELAY_DEFERRED, code, false));
      }
      // No answer from the relay: its connection's error names the operator's network (host, address, port), which
      // the organizations must not see (`lastError`); the operator's log has it.
      if (handedOver) {
        this.#logger?.warn({ err: withoutAddresses(e.message), code: e.code }, 'mail: no answer from the mail relay after the whole mail was handed over; it may have been delivered');
        return reject(new MailNotSent(NO_ANSWER, null, false, true));
      }
      this.#logger?.warn({ err: withoutAddresses(e.message), code: e.code }, 'mail: the mail relay could not be reached');
      reject(new MailNotSent(UNREACHABLE, null, false));
    } finally {
      clearTimeout(timer);
      this.#handing.delete(headers);
    }
  }

  #sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const entry = {
        timer: setTimeout(() => entry.wake(), ms),
        wake: () => {
          clearTimeout(entry.timer);
          this.#timers.delete(entry);
          resolve();
        },
      };
      this.#timers.add(entry);
    });
  }
}
