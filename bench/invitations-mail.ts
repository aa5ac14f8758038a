/**
 * The mail half of the invitations benchmark (issue 36, point 8):
 * `benchInvitationMails({ count })` (called by `npm run bench:invitations`;
 * `tsx bench/invitations-mail.ts [--count 10000]` runs it alone).
 *
 * The service runs as `npm start` runs it (bench/support.ts `startServer`:
 * compiled, its own process, embedded store on a temporary DATA_DIR, no
 * Redis) with SMTP_URL pointing at a lean SMTP relay on loopback in this
 * process (smtp-server, no TLS, keeping only a count and each mail's size) and
 * SMTP_RATE_PER_MINUTE at 1,000,000 (unthrottled for this purpose). `count`
 * invitations (distinct addresses, 4 organizations, half with a product) are
 * created due in an hour through the admin NDJSON route, so the service's own
 * minute-by-minute run leaves them alone; once the service is idle,
 * `invitations run-due --at` (the admin route, asked again while it answers
 * `more`, as the CLI does) sends them all, the last answer coming once the
 * last one is written `sent`.
 *
 * Printed: mails/s (from the run's start to its answer, every mail accepted
 * by the relay and written `sent`), the service process's CPU (user + system,
 * all threads, /proc) per mail, and beside it an idle baseline: the same
 * process's CPU over the same wall time doing nothing, right after, so that
 * the idle cost of a running service (timers, the job door's ticks) can be
 * told apart from the cost of mailing. It asserts nothing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { admin, cpuMicros, flag, startServer, waitUntilIdle } from './support.ts';

export interface InvitationMailFigures {
  count: number;
  seconds: number;
  mailsPerSecond: number;
  /** The service's CPU per mail while sending, µs. */
  cpuMicrosPerMail: number;
  /** The same process idle over the same wall time, µs in all and per mail-equivalent. */
  idleCpuMicros: number;
  idleMicrosPerMail: number;
  received: number;
  meanMailBytes: number;
}

async function leanSink(): Promise<{ url: string; count: () => number; bytes: () => number; close(): Promise<void> }> {
  let count = 0;
  let bytes = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    size: 1_000_000,
    onData(stream, _session, callback) {
      stream.on('data', (c: Buffer) => (bytes += c.length));
      stream.on('end', () => {
        count++;
        callback();
      });
    },
  });
  server.on('error', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return { url: `smtp://127.0.0.1:${port}`, count: () => count, bytes: () => bytes, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

export async function benchInvitationMails(options: { count?: number; /** Extra Node flags for the service (e.g. `--cpu-prof`). */ nodeFlags?: string[] } = {}): Promise<InvitationMailFigures> {
  const count = options.count ?? 10_000;
  const sink = await leanSink();
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-invitation-mail-'));
  const server = await startServer({ DATA_DIR: dataDir, SMTP_URL: sink.url, SMTP_RATE_PER_MINUTE: '1000000', LOG_LEVEL: 'warn' }, options.nodeFlags ?? []);
  try {
    const pid = server.child.pid!;
    const at = new Date(Math.ceil((Date.now() + 3600_000) / 1000) * 1000).toISOString();
    const orgs = 4;
    for (let o = 0; o < orgs; o++) {
      const org = await admin(server, 'POST', '/admin/orgs', { name: `Mail bench ${o}`, plan: 'agency' });
      const orgId = org.id as string;
      await admin(server, 'POST', '/admin/products', { orgId, id: 'mug-1', name: 'Stoneware Mug', imageUrl: 'https://img.example/mug.jpg' });
      const lines: string[] = [];
      for (let i = o; i < count; i += orgs) lines.push(JSON.stringify({ email: `buyer${i}@mail.example`, name: `Buyer ${i}`, orderRef: `B-${i}`, sendAt: at, ...(i % 2 === 0 && { productId: 'mug-1' }) }));
      const res = await fetch(`${server.adminUrl}/admin/orgs/${orgId}/invitations`, { method: 'POST', headers: { authorization: `Bearer ${server.adminToken}`, 'content-type': 'application/x-ndjson' }, body: `${lines.join('\n')}\n` });
      const summary = (await res.json()) as { created: number };
      if (summary.created !== lines.length) throw new Error(`created ${summary.created} of ${lines.length} invitations`);
    }
    await waitUntilIdle(pid);

    const cpu0 = cpuMicros(pid);
    const t0 = performance.now();
    let sent = 0;
    // Each request sends for about a minute and says whether more is left (as the CLI does).
    for (let more = true; more; ) {
      const part = await admin(server, 'POST', '/admin/invitations/run-due', { at });
      sent += Number(part.sent);
      more = part.more === true;
    }
    const seconds = (performance.now() - t0) / 1000;
    const cpu = cpuMicros(pid) - cpu0;
    if (sent !== count) throw new Error(`run-due sent ${sent}, expected ${count}`);

    await waitUntilIdle(pid);
    const idle0 = cpuMicros(pid);
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    const idle = cpuMicros(pid) - idle0;

    const figures: InvitationMailFigures = {
      count,
      seconds,
      mailsPerSecond: count / seconds,
      cpuMicrosPerMail: cpu / count,
      idleCpuMicros: idle,
      idleMicrosPerMail: idle / count,
      received: sink.count(),
      meanMailBytes: sink.count() > 0 ? sink.bytes() / sink.count() : 0,
    };
    console.log(`Invitation mails: ${count.toLocaleString('en')} due at once, through a local SMTP relay, SMTP_RATE_PER_MINUTE=1000000 (embedded store, no Redis)`);
    console.log(`  sent        ${Math.round(figures.mailsPerSecond).toLocaleString('en')} mails/s (${seconds.toFixed(1)} s; ${figures.received.toLocaleString('en')} received, ${Math.round(figures.meanMailBytes).toLocaleString('en')} bytes each on average)`);
    console.log(`  service CPU ${Math.round(figures.cpuMicrosPerMail).toLocaleString('en')} µs per mail (${(cpu / 1e6).toFixed(2)} s in all)`);
    console.log(`  idle        ${Math.round(figures.idleMicrosPerMail).toLocaleString('en')} µs per mail-equivalent (${(idle / 1e6).toFixed(2)} s of CPU over the same ${seconds.toFixed(1)} s, doing nothing)`);
    return figures;
  } finally {
    await server.stop();
    await sink.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const profile = process.argv.indexOf('--profile');
  await benchInvitationMails({ count: flag('count', 10_000), ...(profile !== -1 && { nodeFlags: ['--cpu-prof', `--cpu-prof-dir=${process.argv[profile + 1] ?? '.'}`] }) });
}
