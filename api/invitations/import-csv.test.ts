/**
 * The CSV upload of invitations (CONTRACT §14) at the service: the review
 * import's RFC 4180 parser (quotes, a BOM, CRLF, columns in any order), a
 * header without `email` or with an unknown column refused by name with no
 * line read, each bad line rejected with its number (a malformed quote too)
 * while the others are created, a repeat that invites nobody twice, the
 * organization's cap (409, what came before stays), streaming (a batch is
 * written before the file has ended), exact totals past the listed 1,000,
 * and the audit record.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CollectService } from '../collect/service.ts';
import { ApiError } from '../errors.ts';
import { createLogger } from '../logger.ts';
import { EmbeddedStore } from '../store/embedded/store.ts';
import { InvitationsService, type InvitationImportCounts } from './service.ts';

let dir: string;
let store: EmbeddedStore;
let invitations: InvitationsService;
let capped: InvitationsService;
let n = 0;

/** A fresh organization for each test: the 30-day rule and the cap are per organization. */
async function org(): Promise<string> {
  const id = `org_csv${++n}`;
  const stamp = new Date().toISOString();
  await store.orgs.create({ id, name: id, plan: 'growth', rateLimit: null, language: 'en', createdAt: stamp, updatedAt: stamp });
  return id;
}

/** The file as bytes, cut into chunks of `size` bytes (a multi-byte character or a CRLF split across two chunks). */
async function* chunks(text: string | Buffer, size = 7): AsyncGenerator<Buffer> {
  const bytes = Buffer.isBuffer(text) ? text : Buffer.from(text);
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'invitation-csv-'));
  store = await EmbeddedStore.open(dir);
  const secretsKey = Buffer.alloc(32, 9);
  const logger = createLogger('silent');
  const collect = new CollectService({ store, secretsKey, publicUrl: 'https://reviews.example.com', logger });
  invitations = new InvitationsService({ store, secretsKey, publicUrl: 'https://reviews.example.com', logger, collect, mails: true });
  capped = new InvitationsService({ store, secretsKey, publicUrl: 'https://reviews.example.com', logger, collect, mails: false, maxPerOrg: 600 });
});
afterAll(async () => {
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('InvitationsService.importCsv', () => {
  it('reads quoted cells, a BOM and CRLF, columns in any order, and creates each invitation as given', async () => {
    const orgId = await org();
    await store.products.upsert({ orgId, id: 'MUG-1', name: 'Blue mug', url: null, imageUrl: null, gtin: null, brand: null }, new Date());
    const sendAt = new Date(Math.floor(Date.now() / 1000) * 1000 + 3 * 86_400_000).toISOString();
    const csv = [
      'orderRef,email,name,productId,locale,sendAt',
      `ORD-1,ana@example.com,"Silva, Ana",MUG-1,pt-BR,${sendAt}`,
      'ORD-2,bo@example.com,"Bo ""the bear"" Li",,,',
      // A quoted cell over two lines (lines 4 and 5): a name cannot hold a line break, so it is rejected at line 4.
      '"ORD-3",cy@example.com,"Cy\r\nSecond line",,de,',
      'ORD-4,dee@example.com,Dee,,,',
      'ORD-5,not-an-address,Eve,,,',
      '',
    ].join('\r\n');
    const summary = await invitations.importCsv(orgId, chunks(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(csv)]), 5));
    expect(summary).toEqual({
      created: 3,
      existing: 0,
      skipped: [],
      rejected: [
        { line: 4, reason: 'name must be text of at most 100 characters' },
        { line: 7, reason: 'email must be an email address (at most 254 characters)' },
      ],
      skippedTotal: 0,
      rejectedTotal: 2,
      fileError: null,
    });
    const { data } = await invitations.list(orgId, { limit: 10, offset: 0 });
    const byRef = new Map(data.map((i) => [i.orderRef, i]));
    expect([...byRef.keys()].sort()).toEqual(['ORD-1', 'ORD-2', 'ORD-4']);
    expect(byRef.get('ORD-1')).toMatchObject({ email: 'ana@example.com', name: 'Silva, Ana', productId: 'MUG-1', locale: 'pt', state: 'scheduled', sendAt });
    expect(byRef.get('ORD-2')).toMatchObject({ email: 'bo@example.com', name: 'Bo "the bear" Li', productId: null, locale: null, state: 'scheduled' });
    // No sendAt: the default delay.
    expect(Date.parse(byRef.get('ORD-4')!.sendAt!) - Date.now()).toBeGreaterThan(6.9 * 86_400_000);
  });

  it('refuses a header without email, or naming an unknown column, by name: no line is read', async () => {
    const orgId = await org();
    const missing = await invitations.importCsv(orgId, chunks('name,orderRef\nAna,ORD-1\n'));
    expect(missing).toMatchObject({ created: 0, rejectedTotal: 1 });
    expect(missing.fileError).toEqual({ line: 1, reason: 'the header row is missing the required column "email" (found: "name", "orderRef"), so no line was read' });
    expect(missing.rejected).toEqual([missing.fileError]);
    const unknown = await invitations.importCsv(orgId, chunks('email,colour\nana@example.com,blue\n'));
    expect(unknown).toMatchObject({ created: 0, rejectedTotal: 1 });
    expect(unknown.fileError!.reason).toBe('the header row names a column the import does not know: "colour" (known: email, name, productId, orderRef, locale, sendAt), so no line was read');
    const empty = await invitations.importCsv(orgId, chunks(''));
    expect(empty.fileError).toEqual({ line: 1, reason: 'a CSV import needs a header row naming the fields' });
    expect(await store.invitations.count(orgId)).toBe(0);
  });

  it('rejects each bad line with its number and reason, a malformed quote included, and creates the rest', async () => {
    const orgId = await org();
    const csv = [
      'email,productId,locale,sendAt,orderRef',
      'ok1@example.com,,,,A1',
      'ok2@example.com,NOPE,,,A2', // 3: not in the catalog
      'ok3@example.com,,xx,,A3', // 4: not a page language
      'ok4@example.com,,,tomorrow,A4', // 5: not a date-time
      'ok5@example.com,,,2026-12-01T09:00:00,A5', // 6: no time zone
      'ok6@example.com,,en', // 7: too few cells
      'ok7@exa"mple.com,,,,A7', // 8: a quote inside an unquoted cell
      '"ok8@example.com"x,,,,A8', // 9: text after a closing quote
      'ok9@example.com,,,,A9',
      '',
    ].join('\n');
    const summary = await invitations.importCsv(orgId, chunks(csv, 3));
    expect(summary.created).toBe(2);
    expect(summary.rejected.map((r) => r.line)).toEqual([3, 4, 5, 6, 7, 8, 9]);
    const reason = (line: number): string => summary.rejected.find((r) => r.line === line)!.reason;
    expect(reason(3)).toBe('productId is not a product of your catalog');
    expect(reason(4)).toMatch(/^locale must be one of the page languages/);
    expect(reason(5)).toMatch(/^sendAt must be an ISO 8601 date-time with a time zone/);
    expect(reason(6)).toMatch(/^sendAt must be an ISO 8601 date-time with a time zone/);
    expect(reason(7)).toBe('expected 5 fields as in the header row, found 3');
    expect(reason(8)).toMatch(/^invalid CSV: /);
    expect(reason(9)).toMatch(/^invalid CSV: /);
    expect(summary.rejectedTotal).toBe(7);
    expect(summary.fileError).toBeNull();
    expect((await invitations.list(orgId, { limit: 10, offset: 0 })).data.map((i) => i.orderRef).sort()).toEqual(['A1', 'A9']);
  });

  it('a quote never closed is rejected at the line it opens; the lines before it stay', async () => {
    const orgId = await org();
    const summary = await invitations.importCsv(orgId, chunks('email,name\nana@example.com,Ana\nbo@example.com,"Bo\ncy@example.com,Cy\n'));
    expect(summary.created).toBe(1);
    expect(summary.rejected).toHaveLength(1);
    expect(summary.rejected[0]!.line).toBe(3);
    expect(summary.rejected[0]!.reason).toMatch(/^invalid CSV: .*quote/);
  });

  it('is idempotent: the same file again invites nobody twice', async () => {
    const orgId = await org();
    const csv = 'email,orderRef\nana@example.com,ORD-1\nbo@example.com,ORD-2\ncy@example.com,\n';
    expect(await invitations.importCsv(orgId, chunks(csv))).toMatchObject({ created: 3, existing: 0, skippedTotal: 0 });
    const again = await invitations.importCsv(orgId, chunks(csv));
    // With an orderRef: the same invitation; without one: a new line for an address invited within 30 days, stored as skipped.
    expect(again).toMatchObject({ created: 0, existing: 2, skipped: [{ line: 4, reason: 'recently_invited' }], skippedTotal: 1, rejectedTotal: 0 });
    const states = (await invitations.list(orgId, { limit: 10, offset: 0 })).data.map((i) => i.state).sort();
    expect(states).toEqual(['scheduled', 'scheduled', 'scheduled', 'skipped']);
  });

  it('stops at the organization’s cap with 409 invitation_limit_reached; the batches before it stay', async () => {
    const orgId = await org();
    const lines = Array.from({ length: 1200 }, (_, i) => `c${i}@example.com,R${i}`);
    const err = await capped.importCsv(orgId, chunks(`email,orderRef\n${lines.join('\n')}\n`, 4096)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(409);
    expect((err as ApiError).code).toBe('invitation_limit_reached');
    // Batches of 500: lines 2–501 were created, the batch from line 502 would pass 600.
    expect((err as ApiError).message).toBe('An organization may keep at most 600 invitations; the lines from line 502 on would pass it, so none of them was imported. The lines before it stay: 500 invited, 0 already invited, 0 skipped.');
    expect(await store.invitations.count(orgId)).toBe(500);
    // Another organization is not touched.
    expect((await capped.importCsv(await org(), chunks('email\nana@example.com\n'))).created).toBe(1);
  });

  it('streams: a batch is written while the file is still arriving, and progress says so', async () => {
    const orgId = await org();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    async function* slow(): AsyncGenerator<string> {
      yield 'email\n';
      for (let i = 0; i < 600; i++) yield `s${i}@example.com\n`;
      await held;
      yield 'last@example.com\n';
    }
    const seen: InvitationImportCounts[] = [];
    const running = invitations.importCsv(orgId, slow(), { progress: (c) => seen.push({ ...c }) });
    // The first 500 are in the store before the file ends.
    await vi.waitFor(async () => expect(await store.invitations.count(orgId)).toBe(500), { timeout: 10_000, interval: 20 });
    expect(seen.at(-1)).toEqual({ imported: 500, updated: 0, skippedTotal: 0, rejectedTotal: 0 });
    release();
    expect((await running).created).toBe(601);
    expect(seen.at(-1)).toEqual({ imported: 601, updated: 0, skippedTotal: 0, rejectedTotal: 0 });
  });

  it('lists the first 1,000 rejected lines and counts them all; audits the upload in the uploader’s name', async () => {
    const orgId = await org();
    const bad = Array.from({ length: 1100 }, (_, i) => `bad-${i}`);
    const summary = await invitations.importCsv(orgId, chunks(`email\n${bad.join('\n')}\nok@example.com\n`, 8192), { actor: { id: 'usr_1', email: 'owner@example.com' } });
    expect(summary.rejected).toHaveLength(1000);
    expect(summary.rejected[999]!.line).toBe(1001);
    expect(summary).toMatchObject({ created: 1, rejectedTotal: 1100 });
    const [record] = await store.people.audit.listByOrg(orgId, 5);
    expect(record).toMatchObject({ action: 'invitation.imported', actor: { userId: 'usr_1', email: 'owner@example.com' }, target: { id: orgId, label: 'CSV file' } });
    expect(record!.details).toMatchObject({ format: 'csv', created: '1', existing: '0', skipped: '0', rejected: '1100', interrupted: 'no' });
    // No address of a customer in the audit log.
    expect(JSON.stringify({ ...record, actor: null })).not.toContain('example.com');
  });

  it('the CLI’s NDJSON answer keeps its shape through the shared path, with the totals past the 1,000 lines listed', async () => {
    const orgId = await org();
    const out = await invitations.importNdjson(orgId, chunks('{"email":"ana@example.com","orderRef":"A"}\nnot json\n'));
    expect(Object.keys(out).sort()).toEqual(['created', 'existing', 'rejected', 'rejectedTotal', 'skipped', 'skippedTotal']);
    expect(out).toMatchObject({ created: 1, rejected: [{ line: 2 }], rejectedTotal: 1, skippedTotal: 0 });
    // 1,200 bad lines and 1,100 skipped ones (the same address again): the lists stop at 1,000, the counts go on (docs/collect.md).
    const lines = [...Array.from({ length: 1200 }, () => 'not json'), ...Array.from({ length: 1101 }, (_, i) => JSON.stringify({ email: 'bo@example.com', orderRef: `B-${i}` }))];
    const many = await invitations.importNdjson(orgId, chunks(`${lines.join('\n')}\n`, 8192));
    expect(many).toMatchObject({ created: 1, existing: 0, rejectedTotal: 1200, skippedTotal: 1100 });
    expect(many.rejected).toHaveLength(1000);
    expect(many.skipped).toHaveLength(1000);
  });
});
