/**
 * The admin CLI (`npm run admin -- …`): a client of the admin API. With --json
 * each command prints exactly one JSON object on stdout; without it, output is
 * for people. Errors exit non-zero with one line on stderr.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { extname, resolve } from 'node:path';
import { Transform } from 'node:stream';
import { parseArgs } from 'node:util';
import { request } from 'node:http';
import cliProgress from 'cli-progress';
import { ConfigError, loadConfig } from '../config.ts';
import { readAdminToken } from './token.ts';

class CliError extends Error {}

const USAGE = `Usage: npm run admin -- <command> [options] [--json]

  orgs create --name NAME --plan free|starter|growth|agency [--rate-limit N] [--language en]
  orgs set-plan ORG_ID PLAN [--rate-limit N]
  orgs set-language ORG_ID LANGUAGE
  orgs list
  keys create --org ORG_ID --name NAME [--expires 2027-01-01|ISO-DATE-TIME] [--permissions reviews:read,invitations:write]
              (permissions: reviews:read alone unless given; invitations:write lets the key send review invitations)
  keys list --org ORG_ID
  keys revoke KEY_ID
  widgets create --org ORG_ID --name NAME [--layout carousel|grid|list|badge]
                 [--subject-type Product --subject-name "Acme Shoes" --subject-url URL --subject-image URL --subject-brand NAME]
                 [--theme light|dark|auto] [--accent #4f46e5] [--max-reviews N] [--min-rating N]
                 [--platforms GOOGLE,YELP] [--hide-empty] [--no-dates] [--locale en-US|auto] [--json-ld auto|on|off]
                 [--review-languages all|page] [--show-replies true|false]
                 [--product-id PRODUCT_ID | --product-from page] [--json-ld-sources direct|all]
                 [--sources SOURCE_ID,SOURCE_ID…|all]
  widgets update WIDGET_ID [same options as create, without --org]
  widgets list --org ORG_ID
  widgets lint WIDGET_ID
  reviews import --org ORG_ID FILE.ndjson|FILE.json|FILE.csv [--format ndjson|json|csv]
  reviews enrich --org ORG_ID [--force]
  users create --org ORG_ID --email EMAIL --role owner|admin|member [--password-stdin] [--existing-account]
               (an email that has an account already is refused unless --existing-account: then
                that account gets a membership of ORG_ID, its password unchanged)
  users list --org ORG_ID
  users remove USER_ID [--org ORG_ID]
               (--org: that organization's membership only; needed for a user of several organizations.
                An account left with no membership is deleted)
  sources add --org ORG_ID --platform google|trustpilot|yelp|facebook|g2 --account ID [--name "…"] [--every 60m]
              (credentials JSON on stdin, e.g. {"apiKey":"…"}; never on the command line)
  sources list --org ORG_ID
  sources sync SOURCE_ID [--full]
  sources reconnect SOURCE_ID   (new credentials JSON on stdin)
  sources remove SOURCE_ID      (its reviews stay)
  sources release-removals SOURCE_ID   (removes what a full pass held for a person)
  sources keep-removals SOURCE_ID      (keeps them; this source no longer removes them)
  webhooks create --org ORG_ID --url https://… [--events review.created,review.updated] [--description "…"]
  webhooks list --org ORG_ID
  webhooks deliveries WEBHOOK_ID [--status pending|delivered|failed]
  webhooks replay WEBHOOK_ID MESSAGE_ID
  webhooks test WEBHOOK_ID
  webhooks rotate-secret WEBHOOK_ID
  webhooks enable|disable WEBHOOK_ID
  webhooks remove WEBHOOK_ID
  products upsert --org ORG_ID --id PRODUCT_ID --name "…" [--url https://…] [--image https://…] [--gtin DIGITS] [--brand "…"]
  products list --org ORG_ID
  products import --org ORG_ID FILE.csv|FILE.ndjson [--format csv|ndjson]
              (CSV header / NDJSON fields: id,name,url,imageUrl,gtin,brand)
  products remove --org ORG_ID PRODUCT_ID   (refused while reviews name it)
  replies publish REVIEW_ID [--now]   (the text on stdin; posted after the organization's delay,
              --now: at once, and waits until it is published or failed)
  replies remove REVIEW_ID            (off the platform and the review)
  replies list --org ORG_ID [--state draft|scheduled|publishing|published|failed|deleted]
  collect link --org ORG_ID [--rotate]   (the review page's address; --rotate replaces it, ending the old one)
  collect settings --org ORG_ID [--share-url https://…|--no-share-url] [--moderation publish|hold]
  invitations create --org ORG_ID   (NDJSON on stdin, one invitation a line:
              {"email","name","productId","orderRef","locale","sendAt"}; email alone is required)
  invitations list --org ORG_ID [--state scheduled|sent|reminded|reviewed|failed|skipped|expired|cancelled|unsent]
  invitations cancel INVITATION_ID
  invitations run-due [--at ISO-DATE-TIME]   (mails what is due now, reminds and expires; --at: as if it were then)
  invitations purge [--org ORG_ID] [--before ISO-DATE-TIME]
              (retention now: removes the invitations that ended more than INVITATION_RETENTION_DAYS ago,
              or before --before, at least 90 days ago; it also runs by itself once a day)
  invitations erase --org ORG_ID --email ADDRESS
              (an erasure request: every invitation of that address in the organization, whatever its state;
              an unsubscribe stays, so the address is never invited again)
  reviews pending --org ORG_ID   (reviews from the review page waiting for their email step or a person)
  reviews publish REVIEW_ID
  reviews reject REVIEW_ID --reason spam|offensive|personal_data|not_genuine
`;

interface Ctx {
  base: string;
  token: string;
  json: boolean;
}

type Json = Record<string, unknown>;

async function call(ctx: Ctx, method: string, path: string, body?: unknown): Promise<Json> {
  const res = await fetch(`${ctx.base}${path}`, {
    method,
    headers: { authorization: `Bearer ${ctx.token}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  }).catch((err: Error) => {
    throw new CliError(`cannot reach the admin API at ${ctx.base} (${(err.cause as Error | undefined)?.message ?? err.message}); is the service running with the same ADMIN_PORT?`);
  });
  const text = await res.text();
  let parsed: Json;
  try {
    parsed = JSON.parse(text) as Json;
  } catch {
    throw new CliError(`unexpected answer from the admin API (${res.status})`);
  }
  if (!res.ok) throw new CliError(describeError(parsed, res.status));
  return parsed;
}

function describeError(body: Json, status: number): string {
  const details = Array.isArray(body.details)
    ? (body.details as { parameter: string; message: string }[]).map((d) => `${d.parameter} ${d.message}`).join('; ')
    : '';
  return `${String(body.message ?? `HTTP ${status}`)}${details ? ` (${details})` : ''}`;
}

function table(rows: Json[], columns: string[]): string {
  const cells = rows.map((r) => columns.map((c) => (r[c] === null || r[c] === undefined ? '-' : String(r[c]))));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((row) => row[i]!.length)));
  const line = (values: string[]) => values.map((v, i) => v.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line(columns), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n');
}

function need(value: string | undefined, flag: string): string {
  if (value === undefined || value === '') throw new CliError(`${flag} is required`);
  return value;
}

function intFlag(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new CliError(`${flag} must be a whole number`);
  return Number(value);
}

function widgetBody(v: Record<string, string | boolean | undefined>): Json {
  const subject: Json = {};
  if (v['subject-type'] !== undefined) subject.type = v['subject-type'];
  if (v['subject-name'] !== undefined) subject.name = v['subject-name'];
  if (v['subject-url'] !== undefined) subject.url = v['subject-url'];
  if (v['subject-image'] !== undefined) subject.image = v['subject-image'];
  if (v['subject-brand'] !== undefined) subject.brand = v['subject-brand'];
  const options: Json = {};
  if (v.theme !== undefined) options.theme = v.theme;
  if (v.accent !== undefined) options.accentColor = v.accent;
  if (v['max-reviews'] !== undefined) options.maxReviews = intFlag(v['max-reviews'] as string, '--max-reviews');
  if (v['min-rating'] !== undefined) options.minRating = v['min-rating'] === 'none' ? null : intFlag(v['min-rating'] as string, '--min-rating');
  if (v.platforms !== undefined) options.platforms = v.platforms === 'all' ? null : String(v.platforms).split(',').map((p) => p.trim()).filter(Boolean);
  if (v['hide-empty'] !== undefined) options.hideEmpty = v['hide-empty'];
  if (v['no-dates'] !== undefined) options.showDates = !v['no-dates'];
  if (v.locale !== undefined) options.locale = v.locale === 'auto' ? null : v.locale;
  if (v['json-ld'] !== undefined) options.jsonLd = v['json-ld'];
  if (v['review-languages'] !== undefined) options.reviewLanguages = v['review-languages'];
  if (v['show-replies'] !== undefined) {
    if (v['show-replies'] !== 'true' && v['show-replies'] !== 'false') throw new Error('--show-replies must be true or false');
    options.showReplies = v['show-replies'] === 'true';
  }
  if (v['product-id'] !== undefined && v['product-from'] !== undefined) throw new CliError('--product-id and --product-from are exclusive: one product, or the product of the page');
  // "none" turns a product widget back into the organization's.
  if (v['product-id'] !== undefined) options.productId = v['product-id'] === 'none' ? null : v['product-id'];
  if (v['product-from'] !== undefined) options.productFrom = v['product-from'] === 'none' ? null : v['product-from'];
  if (v['json-ld-sources'] !== undefined) options.jsonLdSources = v['json-ld-sources'];
  // A chain's location: only the reviews of these sources (CONTRACT §15); "all" shows every review again.
  if (v.sources !== undefined) options.sourceIds = v.sources === 'all' ? null : String(v.sources).split(',').map((id) => id.trim()).filter(Boolean);
  return {
    ...(v.name !== undefined && { name: v.name }),
    ...(v.layout !== undefined && { layout: v.layout }),
    ...(Object.keys(subject).length > 0 && { subject }),
    ...(Object.keys(options).length > 0 && { options }),
  };
}

const OPTIONS = {
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  name: { type: 'string' },
  plan: { type: 'string' },
  'rate-limit': { type: 'string' },
  org: { type: 'string' },
  expires: { type: 'string' },
  layout: { type: 'string' },
  'subject-type': { type: 'string' },
  'subject-name': { type: 'string' },
  'subject-url': { type: 'string' },
  'subject-image': { type: 'string' },
  'subject-brand': { type: 'string' },
  theme: { type: 'string' },
  accent: { type: 'string' },
  'max-reviews': { type: 'string' },
  'min-rating': { type: 'string' },
  platforms: { type: 'string' },
  'hide-empty': { type: 'boolean' },
  'no-dates': { type: 'boolean' },
  locale: { type: 'string' },
  'json-ld': { type: 'string' },
  'review-languages': { type: 'string' },
  'show-replies': { type: 'string' },
  'product-id': { type: 'string' },
  'product-from': { type: 'string' },
  'json-ld-sources': { type: 'string' },
  sources: { type: 'string' },
  format: { type: 'string' },
  language: { type: 'string' },
  force: { type: 'boolean' },
  email: { type: 'string' },
  role: { type: 'string' },
  'password-stdin': { type: 'boolean' },
  'existing-account': { type: 'boolean' },
  platform: { type: 'string' },
  account: { type: 'string' },
  every: { type: 'string' },
  full: { type: 'boolean' },
  now: { type: 'boolean' },
  state: { type: 'string' },
  url: { type: 'string' },
  events: { type: 'string' },
  description: { type: 'string' },
  status: { type: 'string' },
  id: { type: 'string' },
  image: { type: 'string' },
  gtin: { type: 'string' },
  brand: { type: 'string' },
  rotate: { type: 'boolean' },
  'share-url': { type: 'string' },
  'no-share-url': { type: 'boolean' },
  moderation: { type: 'string' },
  reason: { type: 'string' },
  permissions: { type: 'string' },
  at: { type: 'string' },
  before: { type: 'string' },
} as const;

function print(ctx: Ctx, value: Json, human: () => string): void {
  process.stdout.write(ctx.json ? `${JSON.stringify(value)}\n` : `${human()}\n`);
}

async function importFile(ctx: Ctx, orgId: string, file: string, formatFlag: string | undefined, what: 'reviews' | 'products' = 'reviews'): Promise<Json> {
  const formats: Record<string, string> = what === 'reviews' ? { '.ndjson': 'ndjson', '.jsonl': 'ndjson', '.json': 'json', '.csv': 'csv' } : { '.ndjson': 'ndjson', '.jsonl': 'ndjson', '.csv': 'csv' };
  const format = formatFlag ?? formats[extname(file).toLowerCase()];
  if (!format) throw new CliError(`cannot tell the format of ${file}: use --format ${[...new Set(Object.values(formats))].join('|')}`);
  const size = (await stat(file).catch(() => {
    throw new CliError(`cannot read ${file}`);
  })).size;
  const bar = ctx.json || !process.stderr.isTTY ? null : new cliProgress.SingleBar({ format: 'Importing [{bar}] {percentage}% | {value}/{total} bytes | {eta}s left', stream: process.stderr }, cliProgress.Presets.shades_classic);
  bar?.start(size, 0);
  let sent = 0;
  const meter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      sent += chunk.length;
      bar?.update(sent);
      done(null, chunk);
    },
  });
  const url = new URL(`${ctx.base}/admin/orgs/${encodeURIComponent(orgId)}/${what}?format=${encodeURIComponent(format)}`);
  // node:http rather than fetch: a streamed upload with backpressure, so progress follows the server.
  const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { authorization: `Bearer ${ctx.token}`, 'content-type': 'application/octet-stream' } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', (err) => reject(new CliError(`import interrupted: ${err.message}`)));
    createReadStream(file).on('error', (err) => reject(new CliError(`cannot read ${file}: ${err.message}`))).pipe(meter).pipe(req);
  });
  bar?.stop();
  let parsed: Json;
  try {
    parsed = JSON.parse(answer.body) as Json;
  } catch {
    throw new CliError(`unexpected answer from the admin API (${answer.status})`);
  }
  if (answer.status !== 200) throw new CliError(describeError(parsed, answer.status));
  return parsed;
}

/** Standard input streamed as the body of a POST to the admin API (NDJSON of any size, never held whole). */
async function streamStdin(ctx: Ctx, path: string): Promise<Json> {
  if (process.stdin.isTTY) throw new CliError('give the invitations as NDJSON on standard input, e.g. npm run admin -- invitations create --org ORG_ID --json < invitations.ndjson');
  const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(new URL(`${ctx.base}${path}`), { method: 'POST', headers: { authorization: `Bearer ${ctx.token}`, 'content-type': 'application/x-ndjson' } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', (err) => reject(new CliError(`cannot reach the admin API at ${ctx.base} (${err.message}); is the service running with the same ADMIN_PORT?`)));
    process.stdin.pipe(req);
  });
  let parsed: Json;
  try {
    parsed = JSON.parse(answer.body) as Json;
  } catch {
    throw new CliError(`unexpected answer from the admin API (${answer.status})`);
  }
  if (answer.status !== 200) throw new CliError(describeError(parsed, answer.status));
  return parsed;
}

/** --password-stdin: the first line of standard input (so that it never shows in a shell history or ps). */
async function readPasswordFromStdin(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) text += String(chunk);
  const password = text.split(/\r?\n/)[0] ?? '';
  if (password === '') throw new CliError('--password-stdin: standard input held no password');
  return password;
}

/** A reply's text: all of standard input (one final newline, as `echo` adds, left out). */
async function readReplyFromStdin(): Promise<string> {
  if (process.stdin.isTTY) throw new CliError('give the reply\'s text on standard input, e.g. echo "Thank you!" | npm run admin -- replies publish REVIEW_ID');
  let text = '';
  for await (const chunk of process.stdin) text += String(chunk);
  text = text.replace(/\r?\n$/, '');
  if (text.trim() === '') throw new CliError('standard input held no reply text');
  return text;
}

/** Polls the reply until it is published or failed (--now): at most 15 minutes, the longest the retries take. */
async function settledReply(ctx: Ctx, reviewId: string, first: Json): Promise<Json> {
  const until = Date.now() + 15 * 60_000;
  let reply = first;
  while ((reply.state === 'scheduled' || reply.state === 'publishing') && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 250));
    reply = await call(ctx, 'GET', `/admin/replies/${encodeURIComponent(reviewId)}`);
  }
  return reply;
}

/** A source's credentials: a JSON object on standard input (never an argument: shell history, ps). */
async function readCredentialsFromStdin(): Promise<Json> {
  if (process.stdin.isTTY) throw new CliError('give the credentials as JSON on standard input, e.g. echo \'{"apiKey":"…"}\' | npm run admin -- sources add …');
  let text = '';
  for await (const chunk of process.stdin) text += String(chunk);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // The text itself is never repeated: it is a secret.
    throw new CliError('standard input is not JSON: give the credentials as a JSON object, e.g. {"apiKey":"…"}');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new CliError('the credentials must be a JSON object, e.g. {"apiKey":"…"}');
  return parsed as Json;
}

export async function run(argv: string[]): Promise<void> {
  const { values: v, positionals } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  if (v.help || positionals.length === 0) {
    process.stdout.write(USAGE);
    return;
  }
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) throw new CliError(`configuration: ${err.message}`);
    throw err;
  }
  const token = await readAdminToken(config.adminToken, config.dataDir);
  if (!token) throw new CliError(`no admin token: set ADMIN_TOKEN or start the service once so that it writes ${config.dataDir}/admin-token`);
  const ctx: Ctx = { base: `http://127.0.0.1:${config.adminPort}`, token, json: v.json === true };
  const [resource, action, ...rest] = positionals;
  const command = `${resource} ${action ?? ''}`.trim();

  switch (command) {
    case 'orgs create': {
      const org = await call(ctx, 'POST', '/admin/orgs', {
        name: need(v.name, '--name'),
        plan: need(v.plan, '--plan'),
        ...(v['rate-limit'] !== undefined && { rateLimit: intFlag(v['rate-limit'], '--rate-limit') }),
        ...(v.language !== undefined && { language: v.language }),
      });
      return print(ctx, { id: org.id, name: org.name, plan: org.plan, language: org.language }, () =>
        `Created organization ${org.id} "${org.name}" on the ${org.plan} plan${org.rateLimit ? ` (${org.rateLimit} requests/min)` : ''}, default review language ${org.language}.`,
      );
    }
    case 'orgs set-language': {
      const [orgId, language] = rest;
      const org = await call(ctx, 'PATCH', `/admin/orgs/${encodeURIComponent(need(orgId, 'ORG_ID'))}`, { language: need(language, 'LANGUAGE') });
      return print(ctx, { id: org.id, language: org.language }, () => `Organization ${org.id}: reviews too short to detect are now taken as ${org.language}.`);
    }
    case 'orgs set-plan': {
      const [orgId, plan] = rest;
      const org = await call(ctx, 'PATCH', `/admin/orgs/${encodeURIComponent(need(orgId, 'ORG_ID'))}`, {
        plan: need(plan, 'PLAN'),
        ...(v['rate-limit'] !== undefined && { rateLimit: intFlag(v['rate-limit'], '--rate-limit') }),
      });
      return print(ctx, { id: org.id, name: org.name, plan: org.plan, rateLimit: org.rateLimit }, () => `Organization ${org.id} is now on the ${org.plan} plan${org.rateLimit ? ` (${org.rateLimit} requests/min)` : ''}.`);
    }
    case 'orgs list': {
      const list = await call(ctx, 'GET', '/admin/orgs');
      return print(ctx, list, () => table(list.data as Json[], ['id', 'name', 'plan', 'rateLimit', 'language', 'createdAt']));
    }
    case 'keys create': {
      const key = await call(ctx, 'POST', '/admin/keys', {
        orgId: need(v.org, '--org'),
        name: need(v.name, '--name'),
        ...(v.expires !== undefined && { expiresAt: v.expires }),
        ...(v.permissions !== undefined && { permissions: v.permissions.split(',').map((p) => p.trim()).filter(Boolean) }),
      });
      return print(ctx, key, () =>
        [`Created key ${key.id} "${key.name}"${key.expiresAt ? `, expires ${key.expiresAt}` : ''}, permissions ${(key.permissions as string[]).join(', ')}.`, '', `  ${key.key}`, '', 'This is the only time the full key is shown: store it in a secret manager now.'].join('\n'),
      );
    }
    case 'keys list': {
      const list = await call(ctx, 'GET', `/admin/keys?orgId=${encodeURIComponent(need(v.org, '--org'))}`);
      return print(ctx, list, () => table((list.data as Json[]).map((k) => ({ ...k, permissions: (k.permissions as string[]).join(',') })), ['id', 'name', 'prefix', 'createdAt', 'lastUsedAt', 'expiresAt', 'state', 'permissions']));
    }
    case 'keys revoke': {
      const out = await call(ctx, 'POST', `/admin/keys/${encodeURIComponent(need(rest[0], 'KEY_ID'))}/revoke`);
      return print(ctx, out, () => `Key ${out.id} revoked. Requests with it now get 401.`);
    }
    case 'widgets create': {
      const widget = await call(ctx, 'POST', '/admin/widgets', { orgId: need(v.org, '--org'), ...widgetBody({ ...v, name: need(v.name, '--name') }) });
      return print(ctx, widget, () => `Created widget ${widget.id} "${widget.name}" (${widget.layout}). Get its snippet: GET /api/v1/widgets/${widget.id}/embed`);
    }
    case 'widgets update': {
      const widget = await call(ctx, 'PATCH', `/admin/widgets/${encodeURIComponent(need(rest[0], 'WIDGET_ID'))}`, widgetBody(v));
      return print(ctx, widget, () => `Updated widget ${widget.id} "${widget.name}" (${widget.layout}).`);
    }
    case 'widgets list': {
      const list = await call(ctx, 'GET', `/admin/widgets?orgId=${encodeURIComponent(need(v.org, '--org'))}`);
      return print(ctx, list, () => table(list.data as Json[], ['id', 'name', 'layout', 'createdAt']));
    }
    case 'widgets lint': {
      const out = await call(ctx, 'GET', `/admin/widgets/${encodeURIComponent(need(rest[0], 'WIDGET_ID'))}/lint`);
      const findings = out.data as { severity: string; rule: string; message: string; link: string }[];
      return print(ctx, out, () =>
        findings.length === 0 ? 'No findings: the markup is eligible for review stars.' : findings.map((f) => `${f.severity.toUpperCase()} ${f.rule}: ${f.message}\n  ${f.link}`).join('\n'),
      );
    }
    case 'invitations create': {
      const out = await streamStdin(ctx, `/admin/orgs/${encodeURIComponent(need(v.org, '--org'))}/invitations`);
      const skipped = out.skipped as { line: number; reason: string }[];
      const rejected = out.rejected as { line: number; reason: string }[];
      return print(ctx, out, () =>
        [
          `Created ${out.created} invitation${out.created === 1 ? '' : 's'}; ${out.existing} already invited for that order; skipped ${out.skippedTotal ?? skipped.length}; rejected ${out.rejectedTotal ?? rejected.length}.`,
          ...skipped.slice(0, 20).map((s) => `  line ${s.line}: skipped (${s.reason.replace(/_/g, ' ')})`),
          ...rejected.slice(0, 20).map((r) => `  line ${r.line}: ${r.reason}`),
        ].join('\n'),
      );
    }
    case 'invitations list': {
      const state = v.state !== undefined ? `&state=${encodeURIComponent(v.state)}` : '';
      const page = await call(ctx, 'GET', `/admin/invitations?orgId=${encodeURIComponent(need(v.org, '--org'))}${state}`);
      const list = { data: page.data };
      return print(ctx, list, () => table(page.data as Json[], ['id', 'email', 'productId', 'orderRef', 'state', 'reason', 'sendAt', 'sentAt', 'reviewedAt']));
    }
    case 'invitations cancel': {
      const out = await call(ctx, 'POST', `/admin/invitations/${encodeURIComponent(need(rest[0], 'INVITATION_ID'))}/cancel`);
      return print(ctx, out, () => `Invitation ${out.id} cancelled: no mail or reminder follows, and its link no longer works.`);
    }
    case 'invitations run-due': {
      // Each request sends for about a minute; asked again (the same --at, or now again) until nothing is left.
      const at = v.at ?? new Date().toISOString();
      const out = { sent: 0, reminded: 0, failed: 0, expired: 0 };
      for (;;) {
        const part = await call(ctx, 'POST', '/admin/invitations/run-due', { at });
        for (const k of ['sent', 'reminded', 'failed', 'expired'] as const) out[k] += Number(part[k]);
        if (part.more !== true) break;
      }
      return print(ctx, out, () => `Sent ${out.sent} invitation${out.sent === 1 ? '' : 's'}, ${out.reminded} reminder${out.reminded === 1 ? '' : 's'}; ${out.failed} refused by the relay; ${out.expired} expired.`);
    }
    case 'invitations purge': {
      // Each request is one bounded run; asked again (the same cutoff) until nothing is left.
      const body: Json = { ...(v.org !== undefined && { orgId: v.org }), ...(v.before !== undefined && { before: v.before }) };
      const out = { purged: 0, organizations: {} as Record<string, number>, endedBefore: '' };
      for (;;) {
        const part = await call(ctx, 'POST', '/admin/invitations/purge', body);
        out.purged += Number(part.purged);
        for (const [org, n] of Object.entries(part.organizations as Record<string, number>)) out.organizations[org] = (out.organizations[org] ?? 0) + n;
        out.endedBefore = String(part.endedBefore);
        body.before ??= out.endedBefore;
        if (part.more !== true) break;
      }
      const orgs = Object.keys(out.organizations).length;
      return print(ctx, out, () => `Purged ${out.purged} invitation${out.purged === 1 ? '' : 's'} that ended before ${out.endedBefore}${orgs > 0 ? ` (${orgs} organization${orgs === 1 ? '' : 's'})` : ''}.`);
    }
    case 'invitations erase': {
      const orgId = need(v.org, '--org');
      const out = await call(ctx, 'POST', `/admin/orgs/${encodeURIComponent(orgId)}/invitations/erase`, { email: need(v.email, '--email') });
      const n = Number(out.erased);
      return print(ctx, out, () =>
        [
          `Erased ${n} invitation${n === 1 ? '' : 's'} of that address in ${orgId}.`,
          out.unsubscribed === true
            ? 'The address stays unsubscribed (kept as a key, not the address): it is what keeps this person from being invited again.'
            : 'The address is not unsubscribed: a new invitation (an order sent again) could reach it; its unsubscribe link, or the unsubscribe page, stops that.',
        ].join('\n'),
      );
    }
    case 'reviews import': {
      const file = need(rest[0], 'FILE');
      const out = await importFile(ctx, need(v.org, '--org'), file, v.format);
      const rejected = out.rejected as { line: number; reason: string }[];
      return print(ctx, out, () =>
        [
          `Imported ${out.imported} new, updated ${out.updated}, rejected ${out.rejectedTotal ?? rejected.length}.`,
          out.fileError ? 'The file itself could not be read (below): nothing after that line was imported.' : '',
          Number(out.datesWithoutOffset) > 0 ? `${out.datesWithoutOffset} date-times had no time zone offset and were read as UTC.` : '',
          ...rejected.slice(0, 20).map((r) => `  line ${r.line}: ${r.reason}`),
          rejected.length > 20 ? `  … ${rejected.length - 20} more (use --json for all listed)` : '',
        ]
          .filter(Boolean)
          .join('\n'),
      );
    }
    case 'products upsert': {
      const body: Json = { orgId: need(v.org, '--org'), id: need(v.id, '--id'), name: need(v.name, '--name') };
      if (v.url !== undefined) body.url = v.url;
      if (v.image !== undefined) body.imageUrl = v.image;
      if (v.gtin !== undefined) body.gtin = v.gtin;
      if (v.brand !== undefined) body.brand = v.brand;
      const out = await call(ctx, 'POST', '/admin/products', body);
      return print(ctx, out, () => `Product ${out.id}: ${out.name}`);
    }
    case 'collect link': {
      const out = await call(ctx, 'POST', '/admin/collect/link', { orgId: need(v.org, '--org'), rotate: v.rotate === true });
      return print(ctx, out, () => `Review page: ${out.url}`);
    }
    case 'collect settings': {
      const body: Json = { orgId: need(v.org, '--org') };
      if (v['share-url'] !== undefined && v['no-share-url']) throw new CliError('give --share-url or --no-share-url, not both');
      if (v['share-url'] !== undefined) body.shareUrl = v['share-url'];
      if (v['no-share-url']) body.shareUrl = null;
      if (v.moderation !== undefined) body.moderation = v.moderation;
      const out = await call(ctx, 'POST', '/admin/collect/settings', body);
      return print(ctx, out, () => `Share link: ${out.shareUrl ?? 'none'}; moderation: ${out.moderation}`);
    }
    case 'reviews pending': {
      const list = await call(ctx, 'GET', `/admin/collect/pending?orgId=${encodeURIComponent(need(v.org, '--org'))}`);
      return print(ctx, list, () => table(list.data as Json[], ['id', 'rating', 'authorName', 'productId', 'submittedAt', 'reason']));
    }
    case 'reviews publish':
    case 'reviews reject': {
      const id = need(rest[0], 'REVIEW_ID');
      const out = await call(ctx, 'POST', `/admin/collect/reviews/${encodeURIComponent(id)}/${action}`, action === 'reject' ? { reason: need(v.reason, '--reason') } : {});
      return print(ctx, out, () => `Review ${out.id}: ${out.status}`);
    }
    case 'products list': {
      const list = await call(ctx, 'GET', `/admin/products?orgId=${encodeURIComponent(need(v.org, '--org'))}`);
      return print(ctx, list, () => table(list.data as Json[], ['id', 'name', 'gtin', 'brand', 'reviewCount', 'averageRating']));
    }
    case 'products import': {
      const out = await importFile(ctx, need(v.org, '--org'), need(rest[0], 'FILE'), v.format, 'products');
      const rejected = out.rejected as { line: number; reason: string }[];
      return print(ctx, out, () =>
        [
          `Imported ${out.imported} new products, updated ${out.updated}, rejected ${rejected.length}.`,
          ...rejected.slice(0, 20).map((r) => `  line ${r.line}: ${r.reason}`),
          rejected.length > 20 ? `  … ${rejected.length - 20} more (use --json for all listed)` : '',
        ]
          .filter(Boolean)
          .join('\n'),
      );
    }
    case 'products remove': {
      const id = need(rest[0], 'PRODUCT_ID');
      const out = await call(ctx, 'DELETE', `/admin/products/${encodeURIComponent(id)}?orgId=${encodeURIComponent(need(v.org, '--org'))}`);
      return print(ctx, out, () => `Removed product ${out.id}.`);
    }
    case 'reviews enrich': {
      const out = await call(ctx, 'POST', `/admin/orgs/${encodeURIComponent(need(v.org, '--org'))}/reviews/enrich${v.force ? '?force=true' : ''}`);
      return print(ctx, { enriched: out.enriched, skipped: out.skipped }, () => `Enriched ${out.enriched} reviews, ${out.skipped} already complete${v.force ? '' : ' (--force recomputes them all)'}.`);
    }
    case 'users create': {
      const password = v['password-stdin'] ? await readPasswordFromStdin() : undefined;
      const user = await call(ctx, 'POST', '/admin/users', {
        orgId: need(v.org, '--org'),
        email: need(v.email, '--email'),
        role: need(v.role, '--role'),
        ...(password !== undefined && { password }),
        ...(v['existing-account'] && { existingAccount: true }),
      });
      return print(ctx, user, () =>
        [
          Array.isArray(user.memberships) && user.memberships.length > 1
            ? `Added ${user.email} (${user.id}) to ${user.orgId} as ${user.role}: a member of ${user.memberships.length} organizations now, with the same password.`
            : `Created ${user.role} ${user.email} (${user.id}).`,
          ...(typeof user.password === 'string' ? ['', `  Password: ${user.password}`, '', 'This is the only time the password is shown: hand it over safely.'] : []),
        ].join('\n'),
      );
    }
    case 'users list': {
      const list = await call(ctx, 'GET', `/admin/users?orgId=${encodeURIComponent(need(v.org, '--org'))}`);
      return print(ctx, list, () => table(list.data as Json[], ['id', 'email', 'role', 'createdAt', 'lastSignInAt']));
    }
    case 'users remove': {
      const org = v.org === undefined ? '' : `?orgId=${encodeURIComponent(need(v.org, '--org'))}`;
      const out = await call(ctx, 'DELETE', `/admin/users/${encodeURIComponent(need(rest[0], 'USER_ID'))}${org}`);
      return print(ctx, out, () => (org ? `User ${out.id} removed from ${out.orgId}; their other organizations keep them.` : `User ${out.id} removed; their sessions have ended.`));
    }
    case 'sources add': {
      const body = {
        orgId: need(v.org, '--org'),
        platform: need(v.platform, '--platform'),
        account: need(v.account, '--account'),
        ...(v.name !== undefined && { name: v.name }),
        ...(v.every !== undefined && { every: v.every }),
      };
      const source = await call(ctx, 'POST', '/admin/sources', { ...body, credentials: await readCredentialsFromStdin() });
      return print(ctx, source, () => `Connected ${source.platform} ${source.account} as source ${source.id} ("${source.name}"), synced every ${source.every}; first sync ${source.nextSyncAt}.`);
    }
    case 'sources list': {
      const list = await call(ctx, 'GET', `/admin/sources?orgId=${encodeURIComponent(need(v.org, '--org'))}`);
      return print(ctx, list, () => table(list.data as Json[], ['id', 'platform', 'account', 'state', 'every', 'lastSyncAt', 'nextSyncAt', 'reviewCount', 'heldRemovals', 'lastError']));
    }
    case 'sources sync': {
      const out = await call(ctx, 'POST', `/admin/sources/${encodeURIComponent(need(rest[0], 'SOURCE_ID'))}/sync${v.full ? '?full=true' : ''}`);
      return print(ctx, out, () =>
        [
          `Source ${out.id} (${out.state}): ${out.fetched} fetched, ${out.created} new, ${out.updated} updated, ${out.removed} removed, ${(out.rejected as unknown[]).length} rejected; ${out.requests} requests.`,
          ...(typeof out.held === 'number' ? [`  ${out.held} removals held: more than 10 % of the source's reviews. Decide with sources release-removals ${out.id} or sources keep-removals ${out.id}.`] : []),
          ...(out.rejected as { externalId: string; reason: string }[]).slice(0, 20).map((r) => `  ${r.externalId}: ${r.reason}`),
        ].join('\n'),
      );
    }
    case 'sources reconnect': {
      const id = need(rest[0], 'SOURCE_ID');
      const out = await call(ctx, 'POST', `/admin/sources/${encodeURIComponent(id)}/reconnect`, { credentials: await readCredentialsFromStdin() });
      return print(ctx, out, () => `Source ${out.id} reconnected (${out.state}); next sync ${out.nextSyncAt}.`);
    }
    case 'sources release-removals': {
      const out = await call(ctx, 'POST', `/admin/sources/${encodeURIComponent(need(rest[0], 'SOURCE_ID'))}/release-removals`);
      return print(ctx, out, () => (out.removed === 0 ? `Source ${out.id}: no removals were held (or all were listed again).` : `Source ${out.id}: ${out.removed} reviews the platform no longer lists were removed.`));
    }
    case 'sources keep-removals': {
      const out = await call(ctx, 'POST', `/admin/sources/${encodeURIComponent(need(rest[0], 'SOURCE_ID'))}/keep-removals`);
      return print(ctx, out, () => (out.kept === 0 ? `Source ${out.id}: no removals were held.` : `Source ${out.id}: ${out.kept} reviews are kept; its full passes will not remove them.`));
    }
    case 'sources remove': {
      const out = await call(ctx, 'DELETE', `/admin/sources/${encodeURIComponent(need(rest[0], 'SOURCE_ID'))}`);
      return print(ctx, out, () => `Source ${out.id} removed; the reviews it collected stay.`);
    }
    case 'replies publish': {
      const reviewId = need(rest[0], 'REVIEW_ID');
      const text = await readReplyFromStdin();
      let out = await call(ctx, 'POST', `/admin/replies/${encodeURIComponent(reviewId)}/publish`, { text, now: v.now === true });
      if (v.now) out = await settledReply(ctx, reviewId, out);
      const view = { reviewId: out.reviewId, state: out.state, scheduledAt: out.scheduledAt, reply: out.reply, error: out.error };
      print(ctx, view, () =>
        out.state === 'published'
          ? `Reply to ${reviewId} published (${(out.reply as Json | null)?.date ?? ''}).`
          : out.state === 'failed'
            ? `Reply to ${reviewId} failed: ${String(out.error)}`
            : `Reply to ${reviewId} ${String(out.state)}: posted at ${String(out.scheduledAt)} unless cancelled meanwhile.`,
      );
      if (out.state === 'failed') process.exitCode = 1;
      return;
    }
    case 'replies remove': {
      const out = await call(ctx, 'DELETE', `/admin/replies/${encodeURIComponent(need(rest[0], 'REVIEW_ID'))}`);
      return print(ctx, { reviewId: out.reviewId, state: out.state }, () => `Reply to ${String(out.reviewId)} deleted from its platform and the review.`);
    }
    case 'replies list': {
      const state = v.state === undefined ? '' : `&state=${encodeURIComponent(v.state)}`;
      const list = await call(ctx, 'GET', `/admin/replies?orgId=${encodeURIComponent(need(v.org, '--org'))}${state}`);
      return print(ctx, list, () => table(list.data as Json[], ['reviewId', 'platform', 'state', 'scheduledAt', 'publishedAt', 'error']));
    }
    case 'webhooks create': {
      const out = await call(ctx, 'POST', '/admin/webhooks', {
        orgId: need(v.org, '--org'),
        url: need(v.url, '--url'),
        ...(v.events !== undefined && { events: v.events }),
        ...(v.description !== undefined && { description: v.description }),
      });
      return print(ctx, out, () =>
        [`Created webhook ${out.id} to ${out.url} for ${(out.events as string[]).join(', ')}.`, '', `  ${out.secret}`, '', 'This is the only time the signing secret is shown: store it with the receiver now.'].join('\n'),
      );
    }
    case 'webhooks list': {
      const list = await call(ctx, 'GET', `/admin/webhooks?orgId=${encodeURIComponent(need(v.org, '--org'))}`);
      return print(ctx, list, () => table(list.data as Json[], ['id', 'url', 'events', 'state', 'createdAt', 'lastDeliveryAt', 'failingSince']));
    }
    case 'webhooks deliveries': {
      const id = encodeURIComponent(need(rest[0], 'WEBHOOK_ID'));
      const list = await call(ctx, 'GET', `/admin/webhooks/${id}/deliveries${v.status !== undefined ? `?status=${encodeURIComponent(v.status)}` : ''}`);
      return print(ctx, list, () => table(list.data as Json[], ['id', 'type', 'status', 'attempts', 'lastStatusCode', 'lastError', 'lastAttemptAt', 'nextAttemptAt']));
    }
    case 'webhooks replay': {
      const id = encodeURIComponent(need(rest[0], 'WEBHOOK_ID'));
      const out = await call(ctx, 'POST', `/admin/webhooks/${id}/replay/${encodeURIComponent(need(rest[1], 'MESSAGE_ID'))}`);
      return print(ctx, out, () => `Message ${out.id} will be sent again (same webhook-id).`);
    }
    case 'webhooks test': {
      const out = await call(ctx, 'POST', `/admin/webhooks/${encodeURIComponent(need(rest[0], 'WEBHOOK_ID'))}/test`);
      return print(ctx, out, () => `Test message ${out.id}: ${out.status}${out.statusCode !== null ? ` (HTTP ${out.statusCode})` : ''}.`);
    }
    case 'webhooks rotate-secret': {
      const out = await call(ctx, 'POST', `/admin/webhooks/${encodeURIComponent(need(rest[0], 'WEBHOOK_ID'))}/rotate-secret`);
      return print(ctx, out, () =>
        [`New signing secret for webhook ${out.id}:`, '', `  ${out.secret}`, '', 'Shown only now. The old secret also signs for 24 hours.'].join('\n'),
      );
    }
    case 'webhooks enable':
    case 'webhooks disable': {
      const out = await call(ctx, 'POST', `/admin/webhooks/${encodeURIComponent(need(rest[0], 'WEBHOOK_ID'))}/${action}`);
      return print(ctx, out, () => `Webhook ${out.id} is ${out.state}.`);
    }
    case 'webhooks remove': {
      const out = await call(ctx, 'DELETE', `/admin/webhooks/${encodeURIComponent(need(rest[0], 'WEBHOOK_ID'))}`);
      return print(ctx, out, () => `Webhook ${out.id} removed; nothing more is sent to it.`);
    }
    default:
      throw new CliError(`unknown command "${command}". Run npm run admin -- --help`);
  }
}

if (process.argv[1] !== undefined && import.meta.filename === resolve(process.argv[1])) {
  run(process.argv.slice(2)).catch((err: unknown) => {
    const message = err instanceof CliError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS') ? (err as Error).message : `unexpected error: ${(err as Error).message}`;
    process.stderr.write(`admin: ${message.split('\n')[0]}\n`);
    process.exit(1);
  });
}
