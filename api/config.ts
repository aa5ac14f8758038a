/**
 * The one validated configuration module (CONTRACT §1). Every variable is read
 * here; a bad value stops start-up with a message naming the variable. There
 * are no default secrets: the admin token is generated once into DATA_DIR.
 */
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { parseTrustedProxies } from './middleware/trusted-proxies.ts';
import { parseAllowNetworks, type AllowedNetwork } from './webhooks/networks.ts';
import { parseSecretsKey } from './secrets/secrets.ts';
import { DEFAULT_RETENTION_DAYS, MIN_RETENTION_DAYS } from './store/invitation-types.ts';

export interface Config {
  port: number;
  /** 0 disables the plain-HTTP listener. */
  httpPort: number;
  host: string;
  publicUrl: string;
  tlsCertFile: string | null;
  tlsKeyFile: string | null;
  /** Addresses and CIDR ranges of the proxies whose forwarded headers are believed; empty = none. */
  trustProxy: string[];
  dataDir: string;
  mongodbUrl: string | null;
  redisUrl: string | null;
  /** Prefix of every Redis key, so that several deployments can share one Redis. */
  redisKeyPrefix: string;
  adminToken: string | null;
  adminPort: number;
  logLevel: string;
  /** LOG_FORMAT: `json` (one object a line) or `pretty` (readable lines); null: pretty on a terminal, JSON otherwise. */
  logFormat: 'json' | 'pretty' | null;
  /** Worker processes on one port (node:cluster); more than 1 only on MongoDB with Redis. */
  workers: number;
  /** WEBHOOK_ALLOW_NETWORKS: private ranges webhooks may be sent to after all (CONTRACT §12); empty = none. */
  webhookAllowNetworks: AllowedNetwork[];
  /** WEBHOOK_POLL_MS: how often the dispatcher looks for work without being woken (other instances' events); default 1000. */
  webhookPollMs: number;
  /** WEBHOOK_LOCK_MS: how long a dead instance's webhook work stays locked before another takes it over; default 30000. */
  webhookLockMs: number;
  /** WEBHOOK_RETENTION_DAYS: how long finished deliveries and their messages are kept; default 30. */
  webhookRetentionDays: number;
  /** WEBHOOK_MAX_ENDPOINTS: webhook endpoints one organization may have at most (CONTRACT §12); default 20. */
  webhookMaxEndpoints: number;
  /** SECRETS_KEY (32 bytes); null = generated once into DATA_DIR/secrets-key. */
  secretsKey: Buffer | null;
  /** The review platforms' API base URLs (https only, CONTRACT §11). */
  sourceUrls: SourceUrls;
  /** The operator's Google OAuth client (for Google sources); null when not configured. */
  googleOAuth: { clientId: string; clientSecret: string } | null;
  /** SMTP_URL: the mail relay invitations are sent through (smtp:// or smtps://); null: the inviter is shown the link. A secret (it may hold a password): never logged. */
  smtpUrl: string | null;
  /** SMTP_FROM: the sender of every mail; review invitations show the organization's name instead of `name`. */
  smtpFrom: { name: string; address: string };
  /** SMTP_RATE_PER_MINUTE: mails a minute across all instances (review invitations, reminders); default 60. */
  smtpRatePerMinute: number;
  /** INVITATION_RETENTION_DAYS: how long an ended invitation (and its invitee's address) is kept after it ended; default 180, at least 90. */
  invitationRetentionDays: number;
}

export interface SourceUrls {
  googleBusiness: string;
  googleToken: string;
  googleAuthorize: string;
  /** Business Profile: the accounts (Account Management API) and their locations (Business Information API), for the dashboard's location choice. */
  googleAccounts: string;
  googleLocations: string;
  trustpilot: string;
  yelp: string;
  facebook: string;
  g2: string;
}

const SOURCE_URL_DEFAULTS: Record<keyof SourceUrls, [string, string]> = {
  googleBusiness: ['GOOGLE_BUSINESS_API_URL', 'https://mybusiness.googleapis.com'],
  googleToken: ['GOOGLE_OAUTH_TOKEN_URL', 'https://oauth2.googleapis.com/token'],
  googleAuthorize: ['GOOGLE_OAUTH_AUTHORIZE_URL', 'https://accounts.google.com/o/oauth2/v2/auth'],
  googleAccounts: ['GOOGLE_ACCOUNT_MANAGEMENT_API_URL', 'https://mybusinessaccountmanagement.googleapis.com'],
  googleLocations: ['GOOGLE_BUSINESS_INFORMATION_API_URL', 'https://mybusinessbusinessinformation.googleapis.com'],
  trustpilot: ['TRUSTPILOT_API_URL', 'https://api.trustpilot.com'],
  yelp: ['YELP_API_URL', 'https://api.yelp.com'],
  facebook: ['FACEBOOK_GRAPH_URL', 'https://graph.facebook.com/v21.0'],
  g2: ['G2_API_URL', 'https://data.g2.com'],
};

function sourceUrls(env: Env): SourceUrls {
  const out = {} as SourceUrls;
  for (const [field, [name, fallback]] of Object.entries(SOURCE_URL_DEFAULTS) as [keyof SourceUrls, [string, string]][]) {
    out[field] = (url(env, name, ['https:']) ?? fallback).replace(/\/+$/, '');
  }
  return out;
}

function secretsKey(env: Env): Buffer | null {
  const raw = optional(env, 'SECRETS_KEY');
  if (raw === null) return null;
  const key = parseSecretsKey(raw);
  // The message never repeats the value: it is a secret.
  if (!key) throw new ConfigError('SECRETS_KEY', 'must be 32 random bytes in base64 (e.g. `openssl rand -base64 32`)');
  return key;
}

/**
 * SMTP_FROM: `Name <address>` or a bare address; default `Review Proof
 * <no-reply@{PUBLIC_URL's host}>`. One line, one plain address: it is written
 * into every mail's From header.
 */
function smtpFrom(env: Env, publicUrl: string): Config['smtpFrom'] {
  const raw = optional(env, 'SMTP_FROM');
  if (raw === null) return { name: 'Review Proof', address: `no-reply@${new URL(publicUrl).hostname}` };
  const match = /^\s*(?:([^<>"\r\n]*?)\s*<([^<>\s]+)>|([^<>\s]+))\s*$/.exec(raw);
  const address = match?.[2] ?? match?.[3];
  if (!match || !address || !/^[^\s@<>,;:"()[\]\\]{1,64}@[A-Za-z0-9.-]{1,253}$/.test(address) || /[\u0000-\u001f\u007f]/.test(raw)) {
    throw new ConfigError('SMTP_FROM', `must be an address or "Name <address>" on one line, e.g. Review Proof <no-reply@reviews.example.com>; got ${JSON.stringify(raw.slice(0, 80))}`);
  }
  return { name: (match[1] ?? '').trim() || 'Review Proof', address };
}

function googleOAuth(env: Env): Config['googleOAuth'] {
  const clientId = optional(env, 'GOOGLE_OAUTH_CLIENT_ID');
  const clientSecret = optional(env, 'GOOGLE_OAUTH_CLIENT_SECRET');
  if ((clientId === null) !== (clientSecret === null)) {
    throw new ConfigError(clientId === null ? 'GOOGLE_OAUTH_CLIENT_ID' : 'GOOGLE_OAUTH_CLIENT_SECRET', 'GOOGLE_OAUTH_CLIENT_ID and GOOGLE_OAUTH_CLIENT_SECRET must be set together');
  }
  return clientId === null ? null : { clientId, clientSecret: clientSecret! };
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

function port(env: Env, name: string, fallback: number, allowZero = false): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d{1,5}$/.test(raw)) throw new ConfigError(name, `must be a port number, got ${JSON.stringify(raw)}`);
  const value = Number(raw);
  if (value > 65535 || (value === 0 && !allowZero)) {
    throw new ConfigError(name, `must be between ${allowZero ? 0 : 1} and 65535, got ${raw}`);
  }
  return value;
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const v = raw.toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  throw new ConfigError(name, `must be true or false, got ${JSON.stringify(raw)}`);
}

/** A whole number from `min` to `max`, or `fallback` when unset. */
function wholeNumber(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d{1,12}$/.test(raw) || Number(raw) < min || Number(raw) > max) throw new ConfigError(name, `must be a whole number from ${min} to ${max}, got ${JSON.stringify(raw)}`);
  return Number(raw);
}

/** The longest timer Node keeps (a longer one fires at once). */
const MAX_TIMER_MS = 2_147_483_647;

/** WEBHOOK_MAX_ENDPOINTS when unset (CONTRACT §12, "Limits per organization"). */
export const DEFAULT_WEBHOOK_MAX_ENDPOINTS = 20;

function trustedProxies(env: Env): string[] {
  try {
    return parseTrustedProxies(env.TRUST_PROXY);
  } catch (err) {
    throw new ConfigError('TRUST_PROXY', (err as Error).message);
  }
}

function webhookAllowNetworks(env: Env): AllowedNetwork[] {
  try {
    return parseAllowNetworks(env.WEBHOOK_ALLOW_NETWORKS);
  } catch (err) {
    throw new ConfigError('WEBHOOK_ALLOW_NETWORKS', `${(err as Error).message}; expected a comma-separated list of CIDR ranges such as 10.20.0.0/16, fd00:1::/64`);
  }
}

function optional(env: Env, name: string): string | null {
  const raw = env[name];
  return raw === undefined || raw === '' ? null : raw;
}

function url(env: Env, name: string, protocols: string[]): string | null {
  const raw = optional(env, name);
  if (raw === null) return null;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, 'is not a valid URL');
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(name, `must use ${protocols.join(' or ')}, got ${parsed.protocol}`);
  }
  return raw;
}

export function loadConfig(env: Env = process.env): Config {
  const p = port(env, 'PORT', 8443);
  const httpPort = port(env, 'HTTP_PORT', 8080, true);
  const adminPort = port(env, 'ADMIN_PORT', 8444);
  const host = optional(env, 'HOST') ?? '127.0.0.1';
  if (!/^[A-Za-z0-9.:\-[\]]+$/.test(host)) throw new ConfigError('HOST', `is not an interface address, got ${JSON.stringify(host)}`);

  const publicUrlRaw = url(env, 'PUBLIC_URL', ['https:']);
  const publicUrl = (publicUrlRaw ?? `https://localhost:${p}`).replace(/\/+$/, '');
  if (publicUrlRaw !== null && new URL(publicUrlRaw).pathname.replace(/\/+$/, '') !== '') {
    throw new ConfigError('PUBLIC_URL', 'must be an origin without a path, e.g. https://reviews.example.com');
  }

  const tlsCertFile = optional(env, 'TLS_CERT_FILE');
  const tlsKeyFile = optional(env, 'TLS_KEY_FILE');
  if ((tlsCertFile === null) !== (tlsKeyFile === null)) {
    throw new ConfigError(tlsCertFile === null ? 'TLS_CERT_FILE' : 'TLS_KEY_FILE', 'TLS_CERT_FILE and TLS_KEY_FILE must be set together');
  }

  const adminToken = optional(env, 'ADMIN_TOKEN');
  if (adminToken !== null && adminToken.length < 16) {
    throw new ConfigError('ADMIN_TOKEN', 'must be at least 16 characters');
  }
  if (p === adminPort || (httpPort !== 0 && (httpPort === p || httpPort === adminPort))) {
    throw new ConfigError('PORT', 'PORT, HTTP_PORT and ADMIN_PORT must differ');
  }
  const redisKeyPrefix = optional(env, 'REDIS_KEY_PREFIX') ?? 'rp:';
  if (!/^[A-Za-z0-9:_.-]{1,64}$/.test(redisKeyPrefix)) throw new ConfigError('REDIS_KEY_PREFIX', 'must be 1-64 characters of letters, digits, : _ . -');
  const logLevel = optional(env, 'LOG_LEVEL') ?? 'info';
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    throw new ConfigError('LOG_LEVEL', `must be one of fatal, error, warn, info, debug, trace, silent`);
  }
  const logFormat = optional(env, 'LOG_FORMAT');
  if (logFormat !== null && logFormat !== 'json' && logFormat !== 'pretty') {
    throw new ConfigError('LOG_FORMAT', `must be json or pretty (unset: pretty on a terminal, json otherwise), got ${JSON.stringify(logFormat.slice(0, 40))}`);
  }

  const mongodbUrl = url(env, 'MONGODB_URL', ['mongodb:', 'mongodb+srv:']);
  const redisUrl = url(env, 'REDIS_URL', ['redis:', 'rediss:']);
  return {
    port: p,
    httpPort,
    host,
    publicUrl,
    tlsCertFile,
    tlsKeyFile,
    trustProxy: trustedProxies(env),
    dataDir: resolve(optional(env, 'DATA_DIR') ?? './data'),
    mongodbUrl,
    redisUrl,
    redisKeyPrefix,
    adminToken,
    adminPort,
    logLevel,
    logFormat,
    workers: workers(env, mongodbUrl, redisUrl),
    webhookAllowNetworks: webhookAllowNetworks(env),
    webhookPollMs: wholeNumber(env, 'WEBHOOK_POLL_MS', 1000, 50, MAX_TIMER_MS),
    webhookLockMs: wholeNumber(env, 'WEBHOOK_LOCK_MS', 30_000, 1000, MAX_TIMER_MS),
    webhookRetentionDays: wholeNumber(env, 'WEBHOOK_RETENTION_DAYS', 30, 1, 36_500),
    webhookMaxEndpoints: wholeNumber(env, 'WEBHOOK_MAX_ENDPOINTS', DEFAULT_WEBHOOK_MAX_ENDPOINTS, 1, 1000),
    secretsKey: secretsKey(env),
    sourceUrls: sourceUrls(env),
    googleOAuth: googleOAuth(env),
    smtpUrl: url(env, 'SMTP_URL', ['smtp:', 'smtps:']),
    smtpFrom: smtpFrom(env, publicUrl),
    smtpRatePerMinute: wholeNumber(env, 'SMTP_RATE_PER_MINUTE', 60, 1, 1_000_000),
    invitationRetentionDays: invitationRetentionDays(env),
  };
}

/**
 * INVITATION_RETENTION_DAYS: days an ended invitation is kept (api/invitations/retention.ts). Less than 90
 * is refused: the Collect page's conversion over 90 days counts the invitations sent in those 90 days.
 */
function invitationRetentionDays(env: Env): number {
  const raw = optional(env, 'INVITATION_RETENTION_DAYS');
  if (raw === null) return DEFAULT_RETENTION_DAYS;
  if (!/^\d{1,6}$/.test(raw) || Number(raw) > 36_500) throw new ConfigError('INVITATION_RETENTION_DAYS', `must be a whole number of days from ${MIN_RETENTION_DAYS} to 36500, got ${JSON.stringify(raw)}`);
  const days = Number(raw);
  if (days < MIN_RETENTION_DAYS) {
    throw new ConfigError('INVITATION_RETENTION_DAYS', `must be at least ${MIN_RETENTION_DAYS}, got ${days}: the Collect page's conversion over 90 days counts the invitations sent in the last 90 days, so none may be removed sooner`);
  }
  return days;
}

/** WORKERS: 1 (default), a number, or `auto` (one per CPU). Workers are stateless: the store is MongoDB and the limits are in Redis. */
function workers(env: Env, mongodbUrl: string | null, redisUrl: string | null): number {
  const raw = optional(env, 'WORKERS') ?? '1';
  const n = raw === 'auto' ? availableParallelism() : Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 64) throw new ConfigError('WORKERS', `must be a whole number from 1 to 64, or auto; got ${raw}`);
  if (n > 1 && mongodbUrl === null) {
    throw new ConfigError('WORKERS', `${raw} workers need the MongoDB store (MONGODB_URL): the embedded store has one writer, so it runs in one process; leave WORKERS unset or set it to 1`);
  }
  if (n > 1 && redisUrl === null) throw new ConfigError('WORKERS', `${raw} workers need REDIS_URL: without Redis each process would count the rate limits on its own`);
  return n;
}
