/**
 * Review invitations (CONTRACT §14) as one service: creation from the
 * developer API and the CLI, the list, cancellation, the links, and the
 * review written through a link. Routes (the API, the admin API and so the
 * CLI, the link's page) call this service, never the store.
 *
 * An invitation is created `scheduled` with its `sendAt` (SMTP_URL set;
 * none given: the organization's delay setting after creation) or `unsent`
 * (no relay: the link is for the organization's own mailer). The sender
 * (sender.ts) mails what is due, reminds and expires.
 *
 * An invitee's email is personal data: it leaves only in the answers of the
 * organization's own API, CLI and dashboard, never in a log line, a webhook,
 * a review or another organization's answer. Nothing here reads a rating, a
 * sentiment or anything known of an opinion: who is invited depends on the
 * rules of §14 only, and every invitee gets the same page.
 */
import { ApiError, badRequest, invalidParameters } from '../errors.ts';
import type { Logger } from '../logger.ts';
import { MAX_ERROR_DETAILS } from '../openapi/error-schemas.ts';
import { audit, OPERATOR } from '../dashboard/audit.ts';
import { csvRecords, ndjsonRecords, type ChunkSource, type CsvSchema } from '../reviews/import/index.ts';
import { newId } from '../store/ids.ts';
import { INVITATION_LINK_DAYS, INVITATION_STATES, type Invitation, type InvitationDraft, type InvitationState } from '../store/invitation-types.ts';
import type { Organization, Store } from '../store/types.ts';
import type { User } from '../store/people-types.ts';
import { DEFAULT_INVITATION_SETTINGS, invitationSettings } from '../store/collect-types.ts';
import { PRODUCT_ID, type Product } from '../store/product-types.ts';
import type { CollectService, FieldErrors, SubmissionFields } from '../collect/service.ts';
import { InvitationLinks } from './links.ts';
import { checkInvitation, INVITATION_FIELDS, type FieldProblem, type InvitationInput } from './validate.ts';

/** Invitations per API request at most (`{"data":[…]}`). */
export const MAX_BATCH = 100;
/**
 * Stored invitations an organization may hold (every state counts): one
 * organization's uploads must never fill the store for the others. Ended
 * invitations are removed INVITATION_RETENTION_DAYS (180 by default) after
 * they ended (retention.ts), so this counts about half a year of invitations
 * plus those still live: far more than a shop with 700 orders a day needs (the
 * bench sends 100,000 at once); a batch that would pass it is refused whole
 * (409 invitation_limit_reached).
 */
export const DEFAULT_MAX_PER_ORG = 250_000;
/** `sendAt` when none is given: the organization's delay setting (`delayDays`), this by default. */
export const DEFAULT_DELAY_DAYS = DEFAULT_INVITATION_SETTINGS.delayDays;
/** A link works this many days after the mail was sent (or, never mailed by us, after creation). */
export const LINK_DAYS = INVITATION_LINK_DAYS;
/** NDJSON lines written per store call. */
const IMPORT_BATCH = 500;
/** Rejected and skipped lines listed in an import's answer at most (the CSV upload's totals are exact). */
const MAX_LISTED = 1000;

const DAY_MS = 86_400_000;

/** An invitation as the organization's API, CLI and dashboard show it. */
export interface InvitationView {
  id: string;
  email: string;
  name: string | null;
  productId: string | null;
  orderRef: string | null;
  locale: string | null;
  state: InvitationState;
  reason: string | null;
  lastError: string | null;
  createdAt: string;
  sendAt: string | null;
  sentAt: string | null;
  remindedAt: string | null;
  reviewedAt: string | null;
  link: string | null;
}

/** The answer to a creation: one per item, in order. */
export interface CreatedView {
  id: string;
  email: string;
  state: InvitationState;
  sendAt: string | null;
  link: string | null;
  /** `skipped` only: why. */
  reason?: string;
}

export interface ImportSummary {
  created: number;
  /** Lines whose orderRef and email were invited before: that invitation stands, nothing new. */
  existing: number;
  skipped: { line: number; reason: string }[];
  rejected: { line: number; reason: string }[];
}

/** The CSV upload's answer: the lists capped at 1,000, the totals exact; `fileError` when the file could not be read past a line (a header without `email`, an unknown column). */
export interface InvitationImportSummary extends ImportSummary {
  skippedTotal: number;
  rejectedTotal: number;
  fileError: { line: number; reason: string } | null;
}

/** The counts so far, as the dashboard's upload record keeps them (api/dashboard/import-runs.ts): `imported` created, `updated` already there. */
export interface InvitationImportCounts {
  imported: number;
  updated: number;
  skippedTotal: number;
  rejectedTotal: number;
}

/** Who uploads, the progress as it goes, and the uploader's check before each batch (the dashboard's upload). */
export interface InvitationImportOptions {
  /** A dashboard user; the operator when absent (admin API, CLI). */
  actor?: Pick<User, 'id' | 'email'>;
  progress?: (counts: InvitationImportCounts) => void;
  /** Called before each batch is written; throws to stop the import (what was written stays). */
  beforeWrite?: () => Promise<void>;
}

/** The CSV columns of an invitation upload: `email` required, the others optional; an empty cell is an absent field. */
export const INVITATION_CSV: CsvSchema = { fields: INVITATION_FIELDS, required: ['email'], cell: (_field, raw) => (raw.trim() === '' ? undefined : raw) };

export type LinkOutcome =
  | { kind: 'form'; invitation: Invitation; org: Organization; product: Product | null }
  /** Used: the review was received. Never the private link: the organization holds every invitation link (review 9 H1). */
  | { kind: 'reviewed' }
  /**
   * The address already has a published review of the invitation's product
   * (or of the organization): a link never replaces it (the organization
   * holds every link, so a link proves nothing of who writes). Nothing is
   * created and the invitation stays as it is (review 9 H2).
   */
  | { kind: 'already_reviewed' }
  | { kind: 'expired' }
  | { kind: 'gone' }
  | { kind: 'not_found' };

export type LinkSubmitOutcome = LinkOutcome | { kind: 'invalid'; errors: FieldErrors; formExpired: boolean; page: Extract<LinkOutcome, { kind: 'form' }> } | { kind: 'published'; manageUrl: string; shareUrl: string | null };

export interface InvitationsServiceOptions {
  store: Store;
  secretsKey: Buffer;
  publicUrl: string;
  logger: Logger;
  collect: CollectService;
  /** SMTP_URL is set: invitations are `scheduled` to be mailed; else `unsent` links. */
  mails: boolean;
  now?: () => Date;
  maxPerOrg?: number;
  /** Called when new invitations are due already (sendAt now or past): the sender runs at once instead of at its next minute. */
  onDue?: () => void;
}

export class InvitationsService {
  readonly links: InvitationLinks;
  private readonly store: Store;
  private readonly now: () => Date;
  readonly maxPerOrg: number;

  constructor(private readonly options: InvitationsServiceOptions) {
    this.store = options.store;
    this.links = new InvitationLinks(options.secretsKey);
    this.now = options.now ?? (() => new Date());
    this.maxPerOrg = options.maxPerOrg ?? DEFAULT_MAX_PER_ORG;
  }

  /** Whether invitations are mailed by the service (else `unsent` links). */
  get mails(): boolean {
    return this.options.mails;
  }

  // ---- Creation ----------------------------------------------------------------

  /** Unknown products among the inputs, as problems naming each item's field. */
  private async unknownProducts(orgId: string, items: { productId: string | null; parameter: string }[]): Promise<FieldProblem[]> {
    const known = new Map<string, boolean>();
    const problems: FieldProblem[] = [];
    for (const { productId, parameter } of items) {
      if (productId === null) continue;
      let found = known.get(productId);
      if (found === undefined) known.set(productId, (found = (await this.store.products.get(orgId, productId)) !== null));
      if (!found) problems.push({ parameter, message: 'is not a product of your catalog' });
    }
    return problems;
  }

  /** New invitations due already: the sender is asked to run now. */
  private askIfDue(results: { invitation: Invitation; created: boolean }[], now: Date): void {
    const stamp = now.toISOString();
    if (results.some((r) => r.created && r.invitation.state === 'scheduled' && r.invitation.sendAt !== null && r.invitation.sendAt <= stamp)) this.options.onDue?.();
  }

  /** The organization's delay setting (days from creation to the mail when an invitation gives no sendAt). */
  private async delayDays(orgId: string): Promise<number> {
    return invitationSettings(await this.store.collect.getSettings(orgId)).delayDays;
  }

  private draft(orgId: string, input: InvitationInput, now: Date, delayDays: number): InvitationDraft {
    const stamp = now.toISOString();
    const mails = this.options.mails;
    return {
      id: newId('inv'),
      orgId,
      email: input.email,
      emailKey: this.options.collect.keys.emailKey(input.email),
      name: input.name,
      productId: input.productId,
      orderRef: input.orderRef,
      locale: input.locale,
      state: mails ? 'scheduled' : 'unsent',
      reason: null,
      lastError: null,
      createdAt: stamp,
      sendAt: mails ? (input.sendAt ?? new Date(now.getTime() + delayDays * DAY_MS).toISOString()) : null,
      sentAt: null,
      remindedAt: null,
      reviewedAt: null,
      submissionId: null,
      updatedAt: stamp,
    };
  }

  private async write(orgId: string, inputs: InvitationInput[]): Promise<{ invitation: Invitation; created: boolean }[]> {
    const now = this.now();
    const delayDays = this.options.mails ? await this.delayDays(orgId) : 0;
    const results = await this.store.invitations.create(orgId, inputs.map((input) => this.draft(orgId, input, now, delayDays)), { max: this.maxPerOrg });
    if (results === null) throw new ApiError(409, 'invitation_limit_reached', `An organization may keep at most ${this.maxPerOrg.toLocaleString('en')} invitations; these would pass it, so none was created.`);
    this.askIfDue(results, now);
    return results;
  }

  /**
   * The developer API's body: one invitation, or `{"data":[…]}` of up to
   * MAX_BATCH. Every item is checked first: any problem is a 400
   * `invalid_parameter` with one detail per field, and nothing is created.
   */
  async createFromApi(orgId: string, body: unknown): Promise<CreatedView[]> {
    const batch = body !== null && typeof body === 'object' && !Array.isArray(body) && 'data' in body;
    const items: unknown[] = batch ? ((body as { data: unknown }).data as unknown[]) : [body];
    if (batch) {
      const data = (body as Record<string, unknown>).data;
      const extra = Object.keys(body as object).filter((k) => k !== 'data');
      if (!Array.isArray(data) || data.length === 0 || data.length > MAX_BATCH || extra.length > 0) {
        const details = [
          ...(!Array.isArray(data) || data.length === 0 || data.length > MAX_BATCH ? [{ parameter: 'data', message: `must be an array of 1 to ${MAX_BATCH} invitations` }] : []),
          ...extra.slice(0, 5).map((k) => ({ parameter: k.slice(0, 60), message: 'is not a known field: send one invitation, or {"data":[…]}' })),
        ];
        throw invalidParameters(details, 'The body must be one invitation or {"data":[…]} of 1 to 100.');
      }
    }
    const now = this.now();
    const problems: FieldProblem[] = [];
    const inputs: InvitationInput[] = [];
    const products: { productId: string | null; parameter: string }[] = [];
    items.forEach((raw, i) => {
      const prefix = batch ? `data[${i}].` : '';
      const checked = checkInvitation(raw, prefix, now);
      if (checked.ok) inputs.push(checked.value);
      else problems.push(...checked.problems);
      // Every item's product is looked up, valid or not: one detail per field in one answer.
      const productId = (raw as { productId?: unknown } | null)?.productId;
      if (typeof productId === 'string' && PRODUCT_ID.test(productId)) products.push({ productId, parameter: `${prefix}productId` });
    });
    problems.push(...(await this.unknownProducts(orgId, products)));
    if (problems.length > 0) {
      const shown = problems.slice(0, MAX_ERROR_DETAILS);
      const fields = [...new Set(shown.map((p) => p.parameter))];
      throw invalidParameters(shown, problems.length > shown.length ? `${problems.length} problems in the invitations; the first ${shown.length} are listed. Nothing was created.` : `Invalid: ${fields.join(', ')}. Nothing was created.`);
    }
    const results = await this.write(orgId, inputs);
    return results.map(({ invitation }) => this.createdView(invitation));
  }

  /**
   * NDJSON, one invitation per line (the CLI): each line on its own; a line
   * that cannot be read or checked is rejected with its number, the others
   * are created, in batches. Audited as the operator's (`invitation.imported`).
   */
  async importNdjson(orgId: string, source: ChunkSource): Promise<Omit<InvitationImportSummary, 'fileError'>> {
    // The lists stop at MAX_LISTED; the totals count every skipped and rejected line (as the CSV upload's).
    const { created, existing, skipped, rejected, skippedTotal, rejectedTotal } = await this.importRecords(orgId, 'ndjson', source, {});
    return { created, existing, skipped, rejected, skippedTotal, rejectedTotal };
  }

  /**
   * A CSV file (the dashboard's upload): a header row naming some of
   * `email,name,productId,orderRef,locale,sendAt` in any order (`email`
   * required, an unknown column refused by name: no line is read), then one
   * invitation a line, read by the review import's streaming RFC 4180 parser
   * (quotes, a BOM, CRLF; a line that cannot be read is rejected with its
   * number and the next line is read). Streamed: the file is never held, only
   * the batch being written. Each line is checked as the API checks an item;
   * the rest as importNdjson.
   */
  async importCsv(orgId: string, source: ChunkSource, options: InvitationImportOptions = {}): Promise<InvitationImportSummary> {
    return this.importRecords(orgId, 'csv', source, options);
  }

  /**
   * The import both formats share: lines checked one by one, written
   * IMPORT_BATCH at a time (the store decides each rule per item), listed
   * rejections and skips capped at MAX_LISTED (the totals are exact). A
   * batch that would pass the organization's cap is a 409
   * (invitation_limit_reached) and ends the import: earlier batches stay.
   * However it ends, the import is audited with what it created.
   */
  private async importRecords(orgId: string, format: 'csv' | 'ndjson', source: ChunkSource, options: InvitationImportOptions): Promise<InvitationImportSummary> {
    await this.org(orgId);
    const summary: InvitationImportSummary = { created: 0, existing: 0, skipped: [], rejected: [], skippedTotal: 0, rejectedTotal: 0, fileError: null };
    const short = (reason: string): string => (reason.length > 300 ? `${reason.slice(0, 300)}…` : reason);
    const reject = (line: number, reason: string): void => {
      summary.rejectedTotal++;
      if (summary.rejected.length < MAX_LISTED) summary.rejected.push({ line, reason: short(reason) });
    };
    const skip = (line: number, reason: string): void => {
      summary.skippedTotal++;
      if (summary.skipped.length < MAX_LISTED) summary.skipped.push({ line, reason });
    };
    const report = (): void => options.progress?.({ imported: summary.created, updated: summary.existing, skippedTotal: summary.skippedTotal, rejectedTotal: summary.rejectedTotal });
    let bytes = 0;
    async function* counted(): AsyncGenerator<string | Uint8Array> {
      for await (const chunk of source) {
        bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.byteLength;
        yield chunk;
      }
    }
    // Whether each product named is in the catalog, asked once per import (bounded: a hostile file may name many).
    const known = new Map<string, boolean>();
    const inCatalog = async (productId: string): Promise<boolean> => {
      let found = known.get(productId);
      if (found === undefined) {
        if (known.size >= 10_000) known.clear();
        known.set(productId, (found = (await this.store.products.get(orgId, productId)) !== null));
      }
      return found;
    };
    let pending: { line: number; input: InvitationInput }[] = [];
    const flush = async (): Promise<void> => {
      if (pending.length === 0) return;
      const batch = pending;
      pending = [];
      await options.beforeWrite?.();
      let results;
      try {
        results = await this.write(orgId, batch.map((b) => b.input));
      } catch (err) {
        // The cap: this batch and the rest of the file are not imported; what the batches before created stays.
        if (err instanceof ApiError && err.code === 'invitation_limit_reached') {
          const n = (v: number): string => v.toLocaleString('en');
          throw new ApiError(409, 'invitation_limit_reached', `An organization may keep at most ${n(this.maxPerOrg)} invitations; the lines from line ${n(batch[0]!.line)} on would pass it, so none of them was imported. The lines before it stay: ${n(summary.created)} invited, ${n(summary.existing)} already invited, ${n(summary.skippedTotal)} skipped.`);
        }
        throw err;
      }
      results.forEach(({ invitation, created }, i) => {
        if (!created) summary.existing++;
        else if (invitation.state === 'skipped') skip(batch[i]!.line, invitation.reason!);
        else summary.created++;
      });
      report();
    };
    const records = format === 'csv' ? csvRecords(counted(), INVITATION_CSV) : ndjsonRecords(counted());
    let interrupted = true;
    try {
      for await (const item of records) {
        if (item.error !== undefined) {
          reject(item.line, item.error);
          if (item.fileLevel && summary.fileError === null) summary.fileError = { line: item.line, reason: short(item.error) };
          report();
          continue;
        }
        const checked = checkInvitation(item.record, '', this.now());
        if (!checked.ok) {
          reject(item.line, checked.problems.map((p) => `${p.parameter} ${p.message}`).join('; '));
          report();
          continue;
        }
        if (checked.value.productId !== null && !(await inCatalog(checked.value.productId))) {
          reject(item.line, 'productId is not a product of your catalog');
          report();
          continue;
        }
        pending.push({ line: item.line, input: checked.value });
        if (pending.length >= IMPORT_BATCH) await flush();
      }
      await flush();
      interrupted = false;
      return summary;
    } finally {
      // However it ends (the cap, the uploader stopped, the connection lost): what landed is audited with what it held.
      await audit(this.store, orgId, options.actor ?? OPERATOR, 'invitation.imported', { id: orgId, label: `${format.toUpperCase()} file` }, {
        format,
        bytes: String(bytes),
        created: String(summary.created),
        existing: String(summary.existing),
        skipped: String(summary.skippedTotal),
        rejected: String(summary.rejectedTotal),
        interrupted: interrupted ? 'yes' : 'no',
      });
    }
  }

  // ---- Reading and cancelling ---------------------------------------------------

  private async org(orgId: string): Promise<Organization> {
    const org = await this.store.orgs.get(orgId);
    if (!org) throw new ApiError(404, 'org_not_found', `No organization ${JSON.stringify(orgId.slice(0, 64))}.`);
    return org;
  }

  async list(orgId: string, query: { state?: InvitationState; limit: number; offset: number }): Promise<{ data: InvitationView[]; total: number }> {
    const page = await this.store.invitations.list(orgId, query);
    return { data: page.data.map((i) => this.view(i)), total: page.total };
  }

  /** A state named by a caller (the CLI's --state), or a 400. */
  static state(value: unknown): InvitationState | undefined {
    if (value === undefined || value === '') return undefined;
    if (!(INVITATION_STATES as readonly unknown[]).includes(value)) {
      const message = `state must be one of ${INVITATION_STATES.join(', ')}.`;
      throw badRequest(message, [{ parameter: 'state', message }]);
    }
    return value as InvitationState;
  }

  /**
   * Cancels an invitation not mailed yet or waiting for its review
   * (`scheduled`, `unsent`, `sent`, `failed`): no mail or reminder follows and
   * its link ends. `orgId` null: the operator, any organization.
   */
  async cancel(orgId: string | null, id: string): Promise<{ id: string; state: 'cancelled' }> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const inv = /^inv_[0-9A-Za-z]{20}$/.test(id) ? await this.store.invitations.get(id) : null;
      if (!inv || (orgId !== null && inv.orgId !== orgId)) throw new ApiError(404, 'invitation_not_found', `No invitation ${JSON.stringify(id.slice(0, 64))}.`);
      if (inv.state === 'cancelled') return { id, state: 'cancelled' };
      if (!['scheduled', 'unsent', 'sent', 'reminded', 'failed'].includes(inv.state)) throw new ApiError(409, 'not_cancellable', `The invitation ${id} is ${inv.state}: there is nothing left to cancel.`);
      const stamp = this.now().toISOString();
      if (await this.store.invitations.update({ ...inv, state: 'cancelled', updatedAt: stamp }, inv)) return { id, state: 'cancelled' };
    }
    throw new ApiError(409, 'not_cancellable', `The invitation ${id} keeps changing; try again.`);
  }

  /**
   * An erasure request (the operator's `invitations erase`): every invitation
   * of the address in the organization is removed at once, whatever its state
   * (a live one is never mailed: the sender's last-moment check finds it
   * gone). The unsubscribe entry, a key and no address, stays: it is what
   * keeps the address from being invited again. Audited with the count only.
   */
  async erase(orgId: string, email: unknown): Promise<{ erased: number; unsubscribed: boolean }> {
    const org = await this.org(orgId);
    if (typeof email !== 'string' || email.trim() === '' || email.length > 254 || !email.includes('@')) {
      throw invalidParameters([{ parameter: 'email', message: 'must be the email address to erase' }], 'Give the email address whose invitations are to be erased.');
    }
    const emailKey = this.options.collect.keys.emailKey(email.trim());
    const erased = await this.store.invitations.erase(org.id, emailKey);
    const unsubscribed = (await this.store.invitations.unsubscribedAt(org.id, emailKey)) !== null;
    await audit(this.store, org.id, OPERATOR, 'invitation.erased', { id: org.id, label: 'An address (not kept)' }, { erased: String(erased), unsubscribed: unsubscribed ? 'yes' : 'no' });
    return { erased, unsubscribed };
  }

  /**
   * The address wants no more invitations from the organization (the
   * unsubscribe link of the mail, /r/u/…): stored as its key, no address kept.
   */
  async unsubscribe(orgId: string, email: string): Promise<void> {
    const emailKey = this.options.collect.keys.emailKey(email);
    await this.store.invitations.unsubscribe(orgId, emailKey, this.now().toISOString());
    await this.stopMails(orgId, emailKey);
  }

  /**
   * An unsubscribed address's mails to come stop now (the sender checks
   * again before each mail all the same): its scheduled invitations become
   * `skipped`, `unsubscribed`; a mailed one loses its reminder.
   */
  private async stopMails(orgId: string, emailKey: string): Promise<void> {
    for (const inv of await this.store.invitations.ofAddress(orgId, emailKey, 100)) {
      const stamp = new Date(Math.max(this.now().getTime(), Date.parse(inv.updatedAt) + 1)).toISOString();
      if (inv.state === 'scheduled') await this.store.invitations.update({ ...inv, state: 'skipped', reason: 'unsubscribed', sendAt: null, leaseUntil: null, updatedAt: stamp }, inv);
      else if (inv.state === 'sent' && inv.remindAt) await this.store.invitations.update({ ...inv, remindAt: null, updatedAt: stamp }, inv);
    }
  }

  // ---- Links -----------------------------------------------------------------------

  /** The invitation's link; null for one that has none (skipped: nobody is asked). */
  link(inv: Invitation): string | null {
    return inv.state === 'skipped' ? null : `${this.options.publicUrl}/r/i/${this.links.token(inv)}`;
  }

  /** When the link stops working: 30 days after the mail was sent, or after creation when the service never mails it. */
  static expiresAt(inv: Invitation): number {
    return Date.parse(inv.sentAt ?? inv.createdAt) + LINK_DAYS * DAY_MS;
  }

  view(inv: Invitation): InvitationView {
    return {
      id: inv.id,
      email: inv.email,
      name: inv.name,
      productId: inv.productId,
      orderRef: inv.orderRef,
      locale: inv.locale,
      state: inv.state,
      reason: inv.reason,
      lastError: inv.lastError,
      createdAt: inv.createdAt,
      sendAt: inv.sendAt,
      sentAt: inv.sentAt,
      remindedAt: inv.remindedAt,
      reviewedAt: inv.reviewedAt,
      link: this.link(inv),
    };
  }

  createdView(inv: Invitation): CreatedView {
    return { id: inv.id, email: inv.email, state: inv.state, sendAt: inv.sendAt, link: this.link(inv), ...(inv.reason !== null && { reason: inv.reason }) };
  }

  /** What a link opens: the review form, the "received" page once used (without the private link), "already reviewed" when the address has a published review of that product (or organization), an expired or ended one, or nothing (tampered, unknown). */
  async open(token: string): Promise<LinkOutcome> {
    const id = this.links.idOf(token);
    const inv = id === null ? null : await this.store.invitations.get(id);
    if (!inv || inv.state === 'skipped' || !this.links.verify(token, inv)) return { kind: 'not_found' };
    // The private link is shown once, on the thank-you page of the submission that used the link: the
    // organization holds every invitation link (its API answers and list), so a used link must not open it.
    if (inv.state === 'reviewed') return { kind: 'reviewed' };
    if (inv.state === 'cancelled') return { kind: 'gone' };
    if (inv.state === 'expired' || InvitationsService.expiresAt(inv) <= this.now().getTime()) return { kind: 'expired' };
    const org = await this.store.orgs.get(inv.orgId);
    if (!org) return { kind: 'not_found' };
    if (await this.options.collect.hasPublished(inv.orgId, inv.emailKey, inv.productId)) return { kind: 'already_reviewed' };
    const product = inv.productId === null ? null : await this.store.products.get(inv.orgId, inv.productId);
    return { kind: 'form', invitation: inv, org, product };
  }

  formToken(inv: Invitation): string {
    return this.options.collect.keys.formToken(inv.id, inv.productId, this.now());
  }

  /**
   * A review through the link: checked as on the review page (no email: the
   * invitation has it), then the invitee's submission is written, the
   * invitation claimed (`reviewed`: one submission wins the link), and the
   * review published at once with `isVerified: true`.
   */
  async submit(token: string, formToken: unknown, fields: Omit<SubmissionFields, 'email'>, language: string): Promise<LinkSubmitOutcome> {
    const page = await this.open(token);
    if (page.kind !== 'form') return page;
    const inv = page.invitation;
    const collect = this.options.collect;
    const errors = collect.check({ ...fields, email: inv.email });
    const form = collect.keys.checkFormToken(formToken, inv.id, inv.productId, this.now());
    if (Object.keys(errors).length > 0 || form !== 'ok') return { kind: 'invalid', errors, formExpired: form !== 'ok', page };
    const sub = await collect.createInvited({ orgId: inv.orgId, invitationId: inv.id, productId: inv.productId, email: inv.email, fields, language });
    const stamp = this.now().toISOString();
    const claimed = await this.store.invitations.update({ ...inv, state: 'reviewed', reviewedAt: stamp, submissionId: sub.id, updatedAt: stamp }, inv);
    if (!claimed) {
      // Another submission (a second tab, a double click) used the link first: this one is not kept.
      await collect.discardInvited(sub);
      return this.open(token);
    }
    if ((await collect.publishInvited(sub)) === 'already_reviewed') {
      // The address's own review was published between the page's check and now: this one replaces
      // nothing. It is forgotten and the link is given back, as it was (the page says why).
      await collect.discardInvited(sub);
      await this.store.invitations.update({ ...inv, updatedAt: this.now().toISOString() }, claimed);
      return { kind: 'already_reviewed' };
    }
    // The thank-you page is the review page's: the same share link on every one, whatever the rating.
    const settings = await collect.settings(inv.orgId);
    return { kind: 'published', manageUrl: collect.manageUrl(sub.id), shareUrl: settings.shareUrl };
  }
}
