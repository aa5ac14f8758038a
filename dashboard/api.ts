/**
 * The one client of the dashboard API: every call goes through `call`, which
 * sends the CSRF token on state-changing requests, parses the error envelope
 * and turns it into a message a person can act on. No fetch anywhere else.
 */

/** The error envelope, as a person reads it. */
export class DashboardError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Field → problem, for forms. */
    readonly fields: Record<string, string> = {},
    /** Field → the server's own words for it (a sentence of its own beside the field). */
    readonly details: Record<string, string> = {},
  ) {
    super(message);
  }
}

let csrfToken = '';
let onSignedOut: () => void = () => undefined;

export function setCsrfToken(token: string): void {
  csrfToken = token;
}

/** Called when the server says the session has ended (401 unauthenticated). */
export function whenSignedOut(handler: () => void): void {
  onSignedOut = handler;
}

interface Envelope {
  error: string;
  message: string;
  details?: { parameter?: string; component?: string; message: string }[];
}

const FIELD_NAMES: Record<string, string> = { email: 'Email', password: 'Password', name: 'Name', expiresAt: 'Expiration date', role: 'Role' };

function toError(status: number, body: Envelope | null, retryAfter: string | null): DashboardError {
  if (!body || typeof body.message !== 'string') {
    return new DashboardError(status, 'unreadable', `The server answered ${status} and the dashboard could not read why. Try again in a moment.`);
  }
  const fields: Record<string, string> = {};
  const details: Record<string, string> = {};
  for (const d of body.details ?? []) {
    if (!d.parameter) continue;
    fields[d.parameter] = `${FIELD_NAMES[d.parameter] ?? d.parameter} ${d.message}.`;
    details[d.parameter] = d.message;
  }
  let message = body.message;
  if (status === 400 && Object.keys(fields).length > 0) message = Object.values(fields).join(' ');
  // A throttle (sign-in attempts, the rate limit) reads as one; a busy import says so itself.
  if (status === 429 && retryAfter && body.error !== 'import_in_progress') {
    const minutes = Math.ceil(Number(retryAfter) / 60);
    message = `Too many attempts. Try again in ${new Intl.NumberFormat().format(minutes)} minute${minutes === 1 ? '' : 's'}.`;
  }
  return new DashboardError(status, body.error, message, fields, details);
}

export async function call<T>(method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET') headers['x-csrf-token'] = csrfToken;
  let res: Response;
  try {
    res = await fetch(`/dashboard/api${path}`, { method, headers, credentials: 'same-origin', ...(body !== undefined && { body: JSON.stringify(body) }) });
  } catch {
    throw new DashboardError(0, 'network', 'The service could not be reached. Check your connection and try again.');
  }
  if (res.status === 204) return undefined as T;
  let parsed: unknown = null;
  try {
    parsed = await res.json();
  } catch {
    parsed = null;
  }
  if (!res.ok) {
    const error = toError(res.status, parsed as Envelope | null, res.headers.get('retry-after'));
    if (error.code === 'unauthenticated') onSignedOut();
    throw error;
  }
  return parsed as T;
}

// The shapes the pages use (the server's document: /dashboard/api/openapi.json).
export type Role = 'owner' | 'admin' | 'member';
export interface SessionInfo {
  user: { id: string; email: string; role: Role } | null;
  org: { id: string; name: string; plan: 'free' | 'starter' | 'growth' | 'agency'; apiAccess: boolean; requestsPerMinute: number | null } | null;
  /** Every organization of the signed-in person, with their role there; `org` is the current one. */
  organizations: Array<{ id: string; name: string; role: Role }>;
  csrfToken: string;
}
export interface KeyItem {
  id: string;
  name: string;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string | null;
  state: 'active' | 'revoked' | 'expired';
  /** What the key may do: `reviews:read` always, `invitations:write` when it may send review invitations. */
  permissions: string[];
}
export interface CreatedKey {
  id: string;
  key: string;
  prefix: string;
  name: string;
  createdAt: string;
  expiresAt: string | null;
  permissions: string[];
}
export interface Member {
  id: string;
  email: string;
  role: Role;
  createdAt: string;
  lastSignInAt: string | null;
}
export interface PendingInvitation {
  /** Names it for revoking; not the link's token. */
  id: string;
  email: string;
  role: Role;
  createdAt: string;
  expiresAt: string;
}
export interface AuditRecord {
  id: string;
  at: string;
  actor: { userId: string | null; email: string };
  action: string;
  target: { id: string; label: string };
  details: Record<string, string>;
}

// Reviews page: the list, moderation and the import upload.
export type HideReason = 'spam' | 'offensive' | 'personal_data' | 'not_about_us';
export interface ReviewItem {
  id: string;
  platform: string;
  authorName: string;
  rating: number | null;
  date: string;
  content: string;
  language: string;
  url: string | null;
  hidden: { reason: HideReason; hiddenAt: string; hiddenBy: string } | null;
  /** The organization's reply as it stands on the platform (read-only here). */
  reply: { text: string; date: string } | null;
}
/** A review's reply record as the replies service keeps it (the server's ReplyItem). */
export interface ReplyInfo {
  reviewId: string;
  platform: string;
  state: 'draft' | 'scheduled' | 'publishing' | 'published' | 'failed' | 'deleted';
  text: string;
  scheduledAt: string | null;
  publishedAt: string | null;
  error: string | null;
  date: string | null;
  author: string;
  approvedBy: string | null;
  updatedAt: string;
}
/** A reply template, its placeholders filled in for one review (the server's ReplyTemplateFilled). */
export interface FilledTemplate {
  id: string;
  name: string;
  language: string;
  ratings: number[];
  text: string;
}
/** What the composer needs for one review (GET /reviews/{id}/reply: the server's ReplyComposer). */
export interface ReplyComposerInfo {
  reviewId: string;
  platform: string;
  organization: string;
  reply: ReplyInfo | null;
  /** The reply the review shows now (the platform's as last synced, or ours as posted); null: none. */
  shown: { text: string; date: string } | null;
  noReplyApi: string | null;
  blocked: string | null;
  maxBytes: number | null;
  delayMinutes: number;
  templates?: FilledTemplate[];
  proposal?: FilledTemplate | null;
}
export interface ReviewList {
  data: ReviewItem[];
  pagination: { total: number; limit: number; offset: number; hasMore: boolean };
  hiddenTotal: number;
  maxImportBytes: number;
}
export interface ImportSummary {
  imported: number;
  updated: number;
  rejected: { line: number; reason: string }[];
  rejectedTotal: number;
  /** The file's own problem (also in `rejected`): nothing after it was read. Reviews only. */
  fileError?: { line: number; reason: string } | null;
  /** Date-times without an offset, read as UTC. Reviews only. */
  datesWithoutOffset?: number;
}
// The product catalog (the Products page): the server's ProductItem and ProductList.
export interface ProductItem {
  id: string;
  name: string;
  url: string | null;
  imageUrl: string | null;
  gtin: string | null;
  brand: string | null;
  createdAt: string;
  reviewCount: number;
  averageRating: number | null;
}
export interface ProductList {
  data: ProductItem[];
  total: number;
  offset: number;
  limit: number;
  maxImportBytes: number;
}
/** The upload running now, or the last one (GET /reviews/import, /products/import). */
export interface ImportRun {
  state: 'running' | 'finished' | 'interrupted' | 'failed';
  startedAt: string;
  endedAt: string | null;
  /** Invitations: those created. */
  imported: number;
  /** Invitations: lines whose orderRef and email were invited before. */
  updated: number;
  rejectedTotal: number;
  /** Invitations only: lines stored as skipped by the rules. */
  skippedTotal?: number;
}

/** The answer to an invitation upload (POST /invitations/import): the server's InvitationImportSummary. */
export interface InvitationImportSummary {
  created: number;
  existing: number;
  skipped: { line: number; reason: 'recently_invited' | 'unsubscribed' }[];
  rejected: { line: number; reason: string }[];
  skippedTotal: number;
  rejectedTotal: number;
  fileError: { line: number; reason: string } | null;
}

/**
 * A file sent as the request body, with upload progress (which fetch cannot
 * report, hence XHR here and nowhere else). The server reads the body as it
 * imports, so bytes sent track the import's progress. Same CSRF token and
 * error envelope as `call`.
 */
export function upload<T>(path: string, file: Blob, onProgress: (sent: number, total: number) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', `/dashboard/api${path}`);
    xhr.setRequestHeader('accept', 'application/json');
    xhr.setRequestHeader('content-type', file.type || 'application/octet-stream');
    xhr.setRequestHeader('x-csrf-token', csrfToken);
    xhr.upload.onprogress = (e) => onProgress(e.loaded, e.lengthComputable ? e.total : file.size);
    xhr.onerror = () => reject(new DashboardError(0, 'network', 'The upload was cut off before the service answered. Check your connection and try again: reviews already imported are kept, and importing again updates them.'));
    xhr.onload = () => {
      let parsed: unknown = null;
      try {
        parsed = JSON.parse(xhr.responseText) as unknown;
      } catch {
        parsed = null;
      }
      if (xhr.status >= 200 && xhr.status < 300) return resolve(parsed as T);
      const error = toError(xhr.status, parsed as Envelope | null, xhr.getResponseHeader('retry-after'));
      if (error.code === 'unauthenticated') onSignedOut();
      reject(error);
    };
    xhr.send(file);
  });
}

// Widgets (the builder): the server's WidgetItem, Widget and WidgetPreview.
export interface WidgetItem {
  id: string;
  name: string;
  layout: string;
  subject: string;
  createdAt: string;
  updatedAt: string;
}
export interface WidgetList {
  data: WidgetItem[];
  platforms: { platform: string; count: number }[];
  /** The organization's catalog, for the builder's product choice. */
  products?: { id: string; name: string }[];
  /** The organization's sources (a chain's locations), for the builder's source choice. */
  sources?: { id: string; name: string; platform: string }[];
}
export interface WidgetRecord {
  id: string;
  name: string;
  layout: 'carousel' | 'grid' | 'list' | 'badge';
  subject: { type: string; name: string; url: string | null; image: string | null; brand: string | null };
  options: {
    theme: 'light' | 'dark' | 'auto';
    accentColor: string;
    maxReviews: number;
    minRating: number | null;
    platforms: string[] | null;
    hideEmpty: boolean;
    showDates: boolean;
    showReplies?: boolean;
    locale: string | null;
    jsonLd: 'auto' | 'on' | 'off';
    reviewLanguages?: 'all' | 'page';
    productId?: string | null;
    productFrom?: 'page' | null;
    jsonLdSources?: 'direct' | 'all';
    sourceIds?: string[] | null;
  };
  createdAt: string;
  updatedAt: string;
  snippet: string;
}
export interface LintFinding {
  rule: string;
  severity: 'error' | 'warning';
  message: string;
  link: string;
}
export interface WidgetPreview {
  /** The public widget data (GET /public/v1/widgets/{id}) of the unsaved options. */
  data: unknown;
  findings: LintFinding[];
}

export type SourcePlatform = 'google' | 'trustpilot' | 'yelp' | 'facebook' | 'g2';
export interface SourceItem {
  id: string;
  platform: SourcePlatform;
  account: string;
  name: string;
  state: 'active' | 'paused' | 'needs_reauth' | 'failing';
  every: string;
  lastSyncAt: string | null;
  lastSuccessAt: string | null;
  /** Null while the source waits for a person (needs reconnecting): the same schedule as the CLI's. */
  nextSyncAt: string | null;
  lastError: string | null;
  /** Removals a full pass held for a person (more than 10 % of the source's reviews); 0 when none. */
  heldRemovals: number;
  reviewCount: number;
  /** The last sync's result (null before the first). */
  lastResult: SyncResult | null;
  /** Credential fields missing before replies can be posted from here (Trustpilot: apiSecret, businessUserId); empty when none. */
  replyMissing: string[];
}
export interface SyncResult {
  at: string;
  full: boolean;
  outcome: 'succeeded' | 'failed' | 'refused';
  fetched: number;
  created: number;
  updated: number;
  removed: number;
  rejected: number;
  error: string | null;
}
/** A source that needs a person (the navigation's badge, the Overview's notice). */
export interface SourceAttention {
  id: string;
  platform: SourcePlatform;
  name: string;
  state: 'needs_reauth' | 'failing';
  lastError: string | null;
}
export interface SourceList {
  data: SourceItem[];
  google: { configured: boolean; redirectUri: string; authorized: boolean };
}
export interface SyncSummary {
  id: string;
  state: SourceItem['state'];
  fetched: number;
  created: number;
  updated: number;
  removed: number;
  rejected: { externalId: string; reason: string }[];
  requests: number;
}

// Webhooks: endpoints, the answer that holds the secret once, the delivery log.
export type WebhookEventType = 'review.created' | 'review.updated' | 'review.removed' | 'source.state_changed' | 'reply.failed';
export interface WebhookEndpoint {
  id: string;
  url: string;
  events: WebhookEventType[];
  description: string;
  state: 'enabled' | 'disabled';
  /** "manual" when a person disabled it; else why the service did. */
  disabledReason: string | null;
  createdAt: string;
  lastDeliveryAt: string | null;
  failingSince: string | null;
}
export interface WebhookCreated {
  id: string;
  url: string;
  events: WebhookEventType[];
  description: string;
  state: 'enabled';
  secret: string;
  createdAt: string;
}
export interface WebhookDelivery {
  /** The message id (webhook-id). */
  id: string;
  type: WebhookEventType | 'webhook.test';
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  lastAttemptAt: string | null;
  nextAttemptAt: string | null;
}
// The review page's Collect page and Pending view (GET /collect, /collect/pending: CONTRACT §13).
export type ModerationMode = 'publish' | 'hold';
export interface CollectInfo {
  collectId: string;
  url: string;
  products: { id: string; name: string; url: string }[];
  shareUrl: string | null;
  moderation: ModerationMode;
  /** Confirmation mails are sent (SMTP_URL set); else every review from the page waits for a person. */
  mail: boolean;
  /** Rejected reviews by rating, 1 to 5 stars (the Overview: rejecting negative reviews is suppression). */
  rejectedByRating: { rating: number; count: number }[];
}
export type HoldReason = 'awaiting_confirmation' | 'moderation' | 'no_mail' | 'links';
export type RejectReason = 'spam' | 'offensive' | 'personal_data' | 'not_genuine';
export interface PendingReview {
  id: string;
  rating: number;
  content: string;
  authorName: string;
  productId: string | null;
  submittedAt: string;
  reason: HoldReason | null;
}
