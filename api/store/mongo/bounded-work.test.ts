/**
 * The MongoDB store's background work is bounded per call, whatever the history or backlog (issue 34, second
 * review: M1 prune, M4 relay, L1 indexes). Counted, never timed: the driver's command monitoring tells how many
 * documents (and distinct values) the server handed back during one call, and what each command's filter was.
 */
import { afterEach, expect, it } from 'vitest';
import { MongoClient, type Collection, type CommandStartedEvent, type CommandSucceededEvent, type Document } from 'mongodb';
import { describeOn, ferretdbTarget } from '../../test/mongo-suites.ts';
import { uniqueDbName } from '../../test/ferretdb.ts';
import { MongoStore, RELAY_ROUND } from './store.ts';

const target = ferretdbTarget();
const DAY = 24 * 3600_000;

interface Opened {
  store: MongoStore;
  raw: MongoClient;
  db: ReturnType<MongoClient['db']>;
  /** Runs `fn` and answers what the store's commands read and how they filtered meanwhile. */
  watch<T>(fn: () => Promise<T>): Promise<{ result: T; read: number; longestArray: number; commands: Document[] }>;
}

const opened: Opened[] = [];
afterEach(async () => {
  for (const o of opened.splice(0)) {
    await o.db.dropDatabase().catch(() => undefined);
    await o.store.close();
    await o.raw.close();
  }
});

async function open(label: string): Promise<Opened> {
  const name = uniqueDbName(label);
  const store = await MongoStore.connect(target.url, name, { monitorCommands: true });
  const raw = new MongoClient(target.url);
  await raw.connect();
  const db = raw.db(name);
  let listening: { read: number; longestArray: number; commands: Document[] } | null = null;
  const client = (store as unknown as { client: MongoClient }).client;
  client.on('commandStarted', (e: CommandStartedEvent) => {
    if (!listening) return;
    listening.commands.push(e.command);
    const walk = (v: unknown): void => {
      if (Array.isArray(v)) {
        listening!.longestArray = Math.max(listening!.longestArray, v.length);
        v.forEach(walk);
      } else if (v && typeof v === 'object') Object.values(v).forEach(walk);
    };
    // Filters and their arrays (`$in`, `$nin`), not documents written.
    walk(e.command.filter ?? e.command.query ?? e.command.q);
    for (const u of (e.command.updates ?? e.command.deletes ?? []) as Document[]) walk(u.q);
  });
  client.on('commandSucceeded', (e: CommandSucceededEvent) => {
    if (!listening) return;
    const reply = e.reply as Document;
    listening.read += (reply.cursor?.firstBatch?.length ?? 0) + (reply.cursor?.nextBatch?.length ?? 0) + (reply.values?.length ?? 0) + (reply.value ? 1 : 0);
  });
  const o: Opened = {
    store, raw, db,
    async watch(fn) {
      listening = { read: 0, longestArray: 0, commands: [] };
      try {
        const result = await fn();
        return { result, ...listening };
      } finally {
        listening = null;
      }
    },
  };
  opened.push(o);
  return o;
}

type Keyed = Document & { _id: string };
const col = (db: Opened['db'], name: string) => db.collection<Keyed>(name);

async function insertAll(to: Collection<Keyed>, docs: Keyed[]): Promise<void> {
  for (let i = 0; i < docs.length; i += 500) await to.insertMany(docs.slice(i, i + 500));
}

const delivery = (mid: string, endpointId: string, at: string, status: 'delivered' | 'pending') => ({
  _id: `${mid}~${endpointId}`, id: `${mid}~${endpointId}`, messageId: mid, endpointId, orgId: 'org_big', type: 'review.created', status,
  attempts: status === 'pending' ? 0 : 1, lastStatusCode: status === 'pending' ? null : 200, lastError: null, lastAttemptAt: status === 'pending' ? null : at,
  nextAttemptAt: null, createdAt: at,
});
const fannedMessage = (mid: string, at: string) => ({ _id: mid, id: mid, orgId: 'org_big', type: 'review.created', body: '{}', createdAt: at, endpointId: null, fanned: true });

describeOn(target, 'MongoDB store: bounded background work', () => {
  it('prunes thousands of old deliveries and their messages in calls that each read at most a few batches, never the whole history', async () => {
    const { store, db, watch } = await open('prune-bounded');
    const old = new Date(Date.now() - 40 * DAY).toISOString();
    const messages: Keyed[] = [];
    const deliveries: Keyed[] = [];
    // 110 messages to 20 endpoints: 2,200 old delivered deliveries.
    for (let m = 0; m < 110; m++) {
      const mid = `msg_old_${String(m).padStart(4, '0')}`;
      messages.push(fannedMessage(mid, old));
      for (let e = 0; e < 20; e++) deliveries.push(delivery(mid, `wh_${e}`, old, 'delivered'));
    }
    // And one pending, whose message stays.
    messages.push(fannedMessage('msg_kept', old));
    deliveries.push(delivery('msg_kept', 'wh_0', old, 'pending'));
    await insertAll(col(db, 'webhook_messages'), messages);
    await insertAll(col(db, 'webhook_deliveries'), deliveries);

    const limit = 100;
    const cutoff = new Date(Date.now() - 30 * DAY);
    let calls = 0;
    for (;;) {
      const { result, read, longestArray, commands } = await watch(() => store.webhooks.prune(cutoff, limit));
      // Per call: at most a batch of deliveries, a page of messages and its referenced ids (the old code read every
      // old delivery's message id, 2,200, and sent back the 110 distinct ones in one `$nin`).
      expect(read).toBeLessThanOrEqual(3 * limit);
      expect(longestArray).toBeLessThanOrEqual(limit);
      expect(JSON.stringify(commands)).not.toContain('$nin');
      calls++;
      if (result === 0) break;
      expect(calls).toBeLessThan(100);
    }
    expect(await col(db, 'webhook_deliveries').find({}, { projection: { _id: 1 } }).toArray()).toEqual([{ _id: 'msg_kept~wh_0' }]);
    expect(await col(db, 'webhook_messages').find({}, { projection: { _id: 1 } }).toArray()).toEqual([{ _id: 'msg_kept' }]);
  }, 180_000);

  it('prunes old messages no delivery refers to even behind more than a batch of old messages still referred to', async () => {
    const { store, db } = await open('prune-stuck');
    const older = new Date(Date.now() - 50 * DAY).toISOString();
    const old = new Date(Date.now() - 40 * DAY).toISOString();
    const messages: Keyed[] = [];
    const deliveries: Keyed[] = [];
    // The oldest 50 wait for a disabled endpoint (pending: kept); 30 newer ones were fanned out to nobody.
    for (let m = 0; m < 50; m++) {
      messages.push(fannedMessage(`msg_a_${String(m).padStart(3, '0')}`, older));
      deliveries.push(delivery(`msg_a_${String(m).padStart(3, '0')}`, 'wh_off', older, 'pending'));
    }
    for (let m = 0; m < 30; m++) messages.push(fannedMessage(`msg_b_${String(m).padStart(3, '0')}`, old));
    await insertAll(col(db, 'webhook_messages'), messages);
    await insertAll(col(db, 'webhook_deliveries'), deliveries);
    const cutoff = new Date(Date.now() - 30 * DAY);
    for (let calls = 0; (await store.webhooks.prune(cutoff, 20)) > 0; calls++) expect(calls).toBeLessThan(50);
    expect(await col(db, 'webhook_messages').countDocuments({ _id: { $regex: '^msg_b_' } })).toBe(0);
    expect(await col(db, 'webhook_messages').countDocuments({ _id: { $regex: '^msg_a_' } })).toBe(50);
    expect(await col(db, 'webhook_deliveries').countDocuments({})).toBe(50);
  }, 120_000);

  it("relays a round reading a bounded number of documents whatever one organization's backlog, another's event in it, every edit by lone _id", async () => {
    const { store, db, watch } = await open('relay-bounded');
    const reviews = col(db, 'reviews');
    const marked = (n: number, orgId: string) => {
      const mid = `msg_${orgId}_${n}`;
      return {
        _id: `${orgId}_rev_${String(n).padStart(5, '0')}`, orgId, platform: 'TRUSTPILOT', externalId: `x${n}`, _outbox: 1,
        _events: { [mid]: { id: mid, orgId, type: 'review.created', body: '{}', createdAt: new Date(1e12 + n).toISOString(), endpointId: null } },
      };
    };
    // A backlog far larger than a round.
    await insertAll(reviews, Array.from({ length: 1500 }, (_, n) => marked(n, 'org_attacker')));
    await reviews.insertOne(marked(0, 'org_victim'));

    const { result, read, commands } = await watch(() => store.relayOutbox(RELAY_ROUND));
    expect(result).toBeGreaterThan(0);
    expect(result).toBeLessThanOrEqual(RELAY_ROUND);
    // The old round read the id and organization of all 1,501 marked documents first.
    expect(read).toBeLessThanOrEqual(4 * RELAY_ROUND);
    // Relayed in this very round, and its message recorded.
    expect(await reviews.countDocuments({ orgId: 'org_victim', _outbox: 1 })).toBe(0);
    expect(await col(db, 'webhook_messages').countDocuments({ _id: 'msg_org_victim_0' })).toBe(1);
    // Every edit of a review document is by its _id alone (FerretDB finds that without a scan).
    const edits = commands.filter((c) => c.update === 'reviews').flatMap((c) => (c.updates as Document[]).map((u) => u.q as Document));
    expect(edits.length).toBeGreaterThan(0);
    for (const q of edits) expect(Object.keys(q)).toEqual(['_id']);
    // Each relayed document lost its events and mark; none was left half done.
    expect(await reviews.countDocuments({ _outbox: 1 })).toBe(1501 - result);
    expect(await reviews.countDocuments({ _outbox: { $exists: false }, _events: { $exists: true } })).toBe(0);
  }, 180_000);

  it("has an index for each query on deliveries: equality fields first, then the query's order", async () => {
    const { db } = await open('delivery-indexes');
    const keys = (await col(db, 'webhook_deliveries').listIndexes().toArray()).map((i) => Object.entries(i.key as Record<string, number>));
    /** An index serves the query when its first fields are the equality ones (any order) and the next are the sort, in order and direction. */
    const served = (equality: string[], sort: [string, number][]): boolean =>
      keys.some((key) => {
        const head = key.slice(0, equality.length).map(([f]) => f);
        if (head.length !== equality.length || !equality.every((f) => head.includes(f))) return false;
        const rest = key.slice(equality.length, equality.length + sort.length);
        return rest.length === sort.length && sort.every(([f, d], i) => rest[i]![0] === f && rest[i]![1] === d);
      });
    // due(now, n, endpointId): {endpointId, status: 'pending', nextAttemptAt ≤ now} by nextAttemptAt, _id.
    expect(served(['endpointId', 'status'], [['nextAttemptAt', 1], ['_id', 1]])).toBe(true);
    // deliveries(endpointId, status, n) and deliveries(endpointId, null, n): newest first.
    expect(served(['endpointId', 'status'], [['createdAt', -1], ['_id', -1]])).toBe(true);
    expect(served(['endpointId'], [['createdAt', -1], ['_id', -1]])).toBe(true);
    // prune: finished deliveries by last attempt; whether a message is still referred to.
    expect(served(['status'], [['lastAttemptAt', 1]])).toBe(true);
    expect(served(['messageId'], [])).toBe(true);
  });
});
