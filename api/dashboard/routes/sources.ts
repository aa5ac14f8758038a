/**
 * Review sources on the dashboard (CONTRACT §11, issue 26 item 5): the list
 * (everyone signed in), connect, sync now, reconnect and remove (Owner,
 * Admin). The work is the admin API's: the same SourcesService calls and the
 * same audit records, with the person as the actor. Credentials arrive in the
 * body only and are never answered: the answers are `view` shapes.
 *
 * Google connects by the OAuth 2.0 authorization-code flow with PKCE (S256):
 * `POST /sources/google/start` keeps a random `state` server-side (bound to
 * the session, single use, 10 minutes) and answers Google's authorization URL;
 * Google sends the browser back to `GET /dashboard/sources/google/callback`,
 * which checks the state, exchanges the code at GOOGLE_OAUTH_TOKEN_URL and
 * keeps the refresh token for this session (15 minutes) until the person names
 * the location (`POST /sources/google`). Both are kept in this process's memory,
 * at most MAX_STATES_PER_ORG requests under way per organization. The start,
 * the locations, connect, reconnect and Sync now are source actions, counted
 * per organization (api/sources/limits.ts: 429 past 30 a minute).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Context } from 'koa';
import { ApiError, badRequest, notFound } from '../../errors.ts';
import type { Source } from '../../store/types.ts';
import { type SourceView, type SourcesService } from '../../sources/service.ts';
import { accountSegments, segmentProblem } from '../../sources/account.ts';
import { addSourceBody, credentialsField, fullFlag, readBody, stringField } from '../../sources/request.ts';
import { HttpClient } from '../../sources/http.ts';
import { audit } from '../audit.ts';
import { sourceInWords } from '../audit-words.ts';
import { auth, sha256 } from '../session.ts';
import type { DashboardDeps } from './deps.ts';

export const GOOGLE_SCOPE = 'https://www.googleapis.com/auth/business.manage';
export const GOOGLE_CALLBACK_PATH = '/dashboard/sources/google/callback';
const STATE_MS = 10 * 60_000;
const GRANT_MS = 15 * 60_000;

interface PendingState {
  sessionId: string;
  orgId: string;
  verifier: string;
  expiresAt: number;
}

interface PendingGrant {
  orgId: string;
  refreshToken: string;
  /** From the same exchange: lists the person's locations (it lives an hour; the grant 15 minutes). */
  accessToken: string | null;
  expiresAt: number;
}

/** Pending authorization requests kept per organization: a further start drops the organization's oldest. */
export const MAX_STATES_PER_ORG = 10;
/** Pending authorization requests kept in all: a further start drops the oldest. */
export const MAX_STATES = 10_000;

/**
 * Authorization requests under way (by the state's hash) and grants waiting for a location (by session).
 * Each map is in the order its entries were made, and every entry lives as long as the others of its map, so
 * the expired ones are at the front: each call drops from the front while expired, and stops at the first
 * live one (never a walk of every entry). An organization keeps at most MAX_STATES_PER_ORG requests under
 * way, the process MAX_STATES: past either cap, the oldest goes (its callback then answers `state`).
 */
export class GoogleConnections {
  readonly states = new Map<string, PendingState>();
  readonly grants = new Map<string, PendingGrant>();
  /** Each organization's pending states' keys, oldest first. */
  private readonly byOrg = new Map<string, Set<string>>();

  constructor(private readonly caps: { perOrg: number; overall: number } = { perOrg: MAX_STATES_PER_ORG, overall: MAX_STATES }) {}

  /** States of `orgId` under way now (expired ones not yet dropped included). */
  pending(orgId: string): number {
    return this.byOrg.get(orgId)?.size ?? 0;
  }

  private drop(key: string): void {
    const found = this.states.get(key);
    if (!found) return;
    this.states.delete(key);
    const keys = this.byOrg.get(found.orgId);
    keys?.delete(key);
    if (keys?.size === 0) this.byOrg.delete(found.orgId);
  }

  private expire(now: number): void {
    for (const [k, v] of this.states) {
      if (v.expiresAt > now) break;
      this.drop(k);
    }
    for (const [k, v] of this.grants) {
      if (v.expiresAt > now) break;
      this.grants.delete(k);
    }
  }

  begin(sessionId: string, orgId: string, now = Date.now()): { state: string; challenge: string } {
    this.expire(now);
    const state = randomBytes(32).toString('base64url');
    const verifier = randomBytes(48).toString('base64url');
    const key = sha256(state);
    this.states.set(key, { sessionId, orgId, verifier, expiresAt: now + STATE_MS });
    let keys = this.byOrg.get(orgId);
    if (!keys) this.byOrg.set(orgId, (keys = new Set()));
    keys.add(key);
    while (keys.size > this.caps.perOrg) this.drop(keys.values().next().value!);
    while (this.states.size > this.caps.overall) this.drop(this.states.keys().next().value!);
    return { state, challenge: createHash('sha256').update(verifier).digest('base64url') };
  }

  /** The state's record, taken (single use): null when unknown, used, expired or another session's. */
  take(state: string, sessionId: string, now = Date.now()): PendingState | null {
    const key = sha256(state);
    const found = this.states.get(key);
    this.drop(key);
    if (!found || found.expiresAt <= now || found.sessionId !== sessionId) return null;
    return found;
  }

  /** Keeps the session's grant (replacing an earlier one, which moves it to the back: the order stays the expiry order). */
  keepGrant(sessionId: string, grant: PendingGrant): void {
    this.grants.delete(sessionId);
    this.grants.set(sessionId, grant);
  }

  grant(sessionId: string, orgId: string, now = Date.now()): PendingGrant | null {
    this.expire(now);
    const found = this.grants.get(sessionId);
    return found && found.orgId === orgId ? found : null;
  }
}

function service(deps: DashboardDeps): SourcesService {
  if (!deps.sources) throw new ApiError(503, 'unavailable', 'Review sources are not available in this service.');
  return deps.sources;
}

/** One of this organization's sources (another organization's is 404, as if it did not exist). */
async function ownSource(deps: DashboardDeps, ctx: Context): Promise<Source> {
  const source = await service(deps).get(String(ctx.params.id)).catch(() => null);
  if (!source || source.orgId !== auth(ctx).org.id) throw notFound('Source');
  return source;
}

function item(s: SourceView) {
  return {
    id: s.id,
    platform: s.platform,
    account: s.account,
    name: s.name,
    state: s.state,
    every: s.every,
    lastSyncAt: s.lastSyncAt,
    lastSuccessAt: s.lastSuccessAt,
    nextSyncAt: s.nextSyncAt,
    lastError: s.lastError,
    heldRemovals: s.heldRemovals,
    reviewCount: s.reviewCount ?? 0,
    lastResult: s.lastResult ?? null,
    replyMissing: s.replyMissing ?? [],
  };
}

/** A source just connected or reconnected, with what it still lacks to reply (read again: the answer of add/reconnect carries no credentials). */
async function withReplyMissing(deps: DashboardDeps, s: SourceView): Promise<SourceView> {
  const stored = await deps.store.sources.get(s.id);
  return stored ? { ...s, replyMissing: service(deps).replyMissing(stored) } : s;
}

/** Where the dashboard's credentials come from, for the 400 that says they are not an object. */
const CREDENTIALS = 'an object of the platform\'s fields';

/** A source in the audit log's words: "Trustpilot source “Main shop” (business unit bu-acme-123)". */
const label = (s: { platform: string; account: string; name?: string | null }): string => sourceInWords(s);

export function listSources(deps: DashboardDeps, google: GoogleConnections) {
  return async function listSources(ctx: Context): Promise<void> {
    const { org, session } = auth(ctx);
    const sources = await service(deps).list(org.id);
    ctx.body = {
      data: sources.map(item),
      google: {
        configured: deps.config.googleOAuth !== null,
        redirectUri: `${deps.config.publicUrl}${GOOGLE_CALLBACK_PATH}`,
        authorized: google.grant(session.id, org.id) !== null,
      },
    };
  };
}

export function connectSource(deps: DashboardDeps) {
  return async function connectSource(ctx: Context): Promise<void> {
    const { org, user } = auth(ctx);
    const request = addSourceBody(await readBody(ctx), CREDENTIALS);
    if (request.platform.trim().toLowerCase() === 'google') throw badRequest('Google connects with the Connect Google button (OAuth), not with pasted credentials', [{ parameter: 'platform', message: 'use Connect Google' }]);
    const added = await service(deps).add({ orgId: org.id, ...request });
    await audit(deps.store, org.id, user, 'source.connected', { id: added.id, label: label(added) });
    ctx.status = 201;
    ctx.body = item(await withReplyMissing(deps, { ...added, reviewCount: 0 }));
  };
}

export function syncSourceNow(deps: DashboardDeps) {
  return async function syncSourceNow(ctx: Context): Promise<void> {
    const source = await ownSource(deps, ctx);
    ctx.body = await service(deps).sync(source.id, fullFlag(ctx.query.full));
  };
}

/**
 * The sources that need a person (needs_reauth, failing), for the navigation's
 * badge and the Overview's notice: every role sees them (a Member sees the
 * Sources list anyway). Read from the sources alone, no review statistics.
 */
export function sourcesNeedingAttention(deps: DashboardDeps) {
  return async function sourcesNeedingAttention(ctx: Context): Promise<void> {
    const { org } = auth(ctx);
    const sources = deps.sources ? await deps.store.sources.listByOrg(org.id) : [];
    ctx.body = {
      data: sources
        .filter((s) => s.state === 'needs_reauth' || s.state === 'failing')
        .map((s) => ({ id: s.id, platform: s.platform.toLowerCase(), name: s.name, state: s.state, lastError: s.lastError })),
    };
  };
}

export function reconnectSource(deps: DashboardDeps) {
  return async function reconnectSource(ctx: Context): Promise<void> {
    const { org, user } = auth(ctx);
    const body = await readBody(ctx);
    const source = await ownSource(deps, ctx);
    if (source.platform === 'GOOGLE') throw badRequest('Reconnect Google with the Connect Google button (OAuth)', [{ parameter: 'credentials', message: 'use Connect Google' }]);
    const updated = await service(deps).reconnect(source.id, credentialsField(body, CREDENTIALS));
    await audit(deps.store, org.id, user, 'source.reconnected', { id: source.id, label: label(updated) });
    ctx.body = item(await withReplyMissing(deps, { ...updated, reviewCount: 0 }));
  };
}

/** Held removals (CONTRACT §11): "Remove them". The audit record names the person. */
export function releaseRemovals(deps: DashboardDeps) {
  return async function releaseRemovals(ctx: Context): Promise<void> {
    const source = await ownSource(deps, ctx);
    ctx.body = await service(deps).releaseRemovals(source.id, auth(ctx).user);
  };
}

/** Held removals: "Keep them". */
export function keepRemovals(deps: DashboardDeps) {
  return async function keepRemovals(ctx: Context): Promise<void> {
    const source = await ownSource(deps, ctx);
    ctx.body = await service(deps).keepRemovals(source.id, auth(ctx).user);
  };
}

export function removeSource(deps: DashboardDeps) {
  return async function removeSource(ctx: Context): Promise<void> {
    const { org, user } = auth(ctx);
    const source = await ownSource(deps, ctx);
    const { id } = await service(deps).remove(source.id);
    await audit(deps.store, org.id, user, 'source.removed', { id, label: label(source) });
    ctx.body = { id, removed: true };
  };
}

export function startGoogle(deps: DashboardDeps, google: GoogleConnections) {
  return async function startGoogle(ctx: Context): Promise<void> {
    const { org, session } = auth(ctx);
    const client = deps.config.googleOAuth;
    if (!client) throw new ApiError(409, 'not_configured', 'Google cannot be connected: the operator has not set GOOGLE_OAUTH_CLIENT_ID and GOOGLE_OAUTH_CLIENT_SECRET.');
    // A source action (sources/limits.ts): counted per organization, 429 past the rate.
    await deps.sources?.takeAction(org.id);
    const { state, challenge } = google.begin(session.id, org.id);
    const url = new URL(deps.config.sourceUrls.googleAuthorize);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: client.clientId,
      redirect_uri: `${deps.config.publicUrl}${GOOGLE_CALLBACK_PATH}`,
      scope: GOOGLE_SCOPE,
      // A refresh token, every time (the sync runs without the person).
      access_type: 'offline',
      prompt: 'consent',
      state,
      code_challenge: challenge,
      code_challenge_method: 'S256',
    }).toString();
    ctx.body = { authorizationUrl: url.toString() };
  };
}

/** Where the callback sends the browser: the Sources page, with an outcome code (never text from the request). */
const back = (ctx: Context, outcome: string): void => {
  ctx.status = 303;
  ctx.redirect(`/dashboard/sources?google=${outcome}`);
};

export function googleCallback(deps: DashboardDeps, google: GoogleConnections) {
  const http = deps.platformHttp ?? new HttpClient();
  return async function googleCallback(ctx: Context): Promise<void> {
    const found = ctx.state.dashboard as ReturnType<typeof auth> | undefined;
    if (!found) return ctx.redirect('/dashboard/sign-in');
    const { session, org, user } = found;
    if (user.role === 'member') return back(ctx, 'forbidden');
    const state = typeof ctx.query.state === 'string' ? ctx.query.state : '';
    const pending = state ? google.take(state, session.id) : null;
    if (!pending || pending.orgId !== org.id) return back(ctx, 'state');
    if (typeof ctx.query.error === 'string') return back(ctx, 'denied');
    const code = typeof ctx.query.code === 'string' ? ctx.query.code : '';
    const client = deps.config.googleOAuth;
    if (!code || !client) return back(ctx, 'failed');
    let refreshToken: string | undefined;
    let accessToken: string | null = null;
    try {
      // Google's names are resolved among this organization's lookups (api/net/host-resolver.ts).
      const res = await http.fork(org.id).call(deps.config.sourceUrls.googleToken, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          redirect_uri: `${deps.config.publicUrl}${GOOGLE_CALLBACK_PATH}`,
          client_id: client.clientId,
          client_secret: client.clientSecret,
          code_verifier: pending.verifier,
        }).toString(),
      });
      if (res.status === 200) {
        const answer = JSON.parse(res.text) as { refresh_token?: unknown; access_token?: unknown };
        refreshToken = typeof answer.refresh_token === 'string' ? answer.refresh_token : undefined;
        accessToken = typeof answer.access_token === 'string' ? answer.access_token : null;
      }
    } catch {
      // Answered as failed below.
    }
    if (typeof refreshToken !== 'string' || refreshToken === '') return back(ctx, 'failed');
    google.keepGrant(session.id, { orgId: org.id, refreshToken, accessToken, expiresAt: Date.now() + GRANT_MS });
    back(ctx, 'authorized');
  };
}

export function connectGoogle(deps: DashboardDeps, google: GoogleConnections) {
  return async function connectGoogle(ctx: Context): Promise<void> {
    const { org, user, session } = auth(ctx);
    const body = await readBody(ctx);
    const account = stringField(body, 'account', true).trim();
    const checked = accountSegments('GOOGLE', account);
    if ('problem' in checked) throw badRequest(`The location is its resource name, accounts/{account}/locations/{location}: the account ${checked.problem}`, [{ parameter: 'account', message: checked.problem }]);
    const grant = google.grant(session.id, org.id);
    if (!grant) throw new ApiError(409, 'conflict', 'Google has not authorized this session yet (or it was more than 15 minutes ago): use Connect Google first.');
    const sources = service(deps);
    // This location already connected: the authorization reconnects its source. Another location is a source
    // of its own (a chain's shops, CONTRACT §15), connected beside the others.
    const existing = (await sources.list(org.id)).find((s) => s.platform === 'google' && s.account === account);
    if (existing) {
      const updated = await sources.reconnect(existing.id, { refreshToken: grant.refreshToken });
      google.grants.delete(session.id);
      await audit(deps.store, org.id, user, 'source.reconnected', { id: updated.id, label: label(updated) });
      ctx.body = item({ ...updated, reviewCount: existing.reviewCount ?? 0 });
      return;
    }
    const added = await sources.add({ orgId: org.id, platform: 'google', account, name: stringField(body, 'name', false), credentials: { refreshToken: grant.refreshToken } });
    google.grants.delete(session.id);
    await audit(deps.store, org.id, user, 'source.connected', { id: added.id, label: label(added) });
    ctx.status = 201;
    ctx.body = item({ ...added, reviewCount: 0 });
  };
}

export interface GoogleLocation {
  /** The resource name the reviews API takes: accounts/{a}/locations/{l}. */
  account: string;
  title: string;
  accountName: string;
}

/**
 * The locations the authorized person manages: the Account Management API's
 * `GET /v1/accounts`, then the Business Information API's
 * `GET /v1/{account}/locations?readMask=name,title` for each (first page of
 * each, up to 20 accounts). When Google refuses or the APIs are not enabled
 * for the project, `error` says so and the page asks for the resource name.
 */
export function googleLocations(deps: DashboardDeps, google: GoogleConnections) {
  const platform = deps.platformHttp ?? new HttpClient();
  return async function googleLocations(ctx: Context): Promise<void> {
    const { org, session } = auth(ctx);
    const grant = google.grant(session.id, org.id);
    if (!grant) throw new ApiError(409, 'conflict', 'Google has not authorized this session yet (or it was more than 15 minutes ago): use Connect Google first.');
    // Up to 21 calls to Google: a source action (sources/limits.ts), counted per organization.
    await service(deps).takeAction(org.id);
    const urls = deps.config.sourceUrls;
    const headers = { authorization: `Bearer ${grant.accessToken ?? ''}` };
    const http = platform.fork(org.id);
    const data: GoogleLocation[] = [];
    try {
      if (!grant.accessToken) throw new Error('no access token');
      const accounts = await http.call(`${urls.googleAccounts}/v1/accounts?pageSize=20`, { headers });
      if (accounts.status !== 200) throw new Error(`accounts: ${accounts.status}`);
      for (const account of ((JSON.parse(accounts.text) as { accounts?: { name?: unknown; accountName?: unknown }[] }).accounts ?? []).slice(0, 20)) {
        // Google's names go into the next URL's path: only well-formed ones (no `..`, `%`, `?` …: account.ts).
        if (typeof account.name !== 'string' || !/^accounts\/[^/]+$/.test(account.name) || segmentProblem(account.name.slice('accounts/'.length)) !== null) continue;
        const res = await http.call(`${urls.googleLocations}/v1/${account.name.split('/').map(encodeURIComponent).join('/')}/locations?readMask=name,title&pageSize=100`, { headers });
        if (res.status !== 200) throw new Error(`locations: ${res.status}`);
        for (const location of (JSON.parse(res.text) as { locations?: { name?: unknown; title?: unknown }[] }).locations ?? []) {
          if (typeof location.name !== 'string' || !/^locations\/[^/]+$/.test(location.name) || segmentProblem(location.name.slice('locations/'.length)) !== null) continue;
          data.push({ account: `${account.name}/${location.name}`, title: typeof location.title === 'string' ? location.title : location.name, accountName: typeof account.accountName === 'string' ? account.accountName : account.name });
        }
      }
    } catch {
      ctx.body = { data, error: 'Google did not list the locations (the Business Profile APIs may not be enabled for this project): enter the location\'s resource name.' };
      return;
    }
    ctx.body = { data, error: null };
  };
}
