/**
 * The sender in a process of its own, for the crash test (sender-crash.test.ts):
 * opens the store it is told (the embedded store's directory, or a MongoDB
 * database), runs `runDue(at)` through the mail door to the test's SMTP relay,
 * prints the result as one JSON line and exits. With `hangAfterAccepted`, the
 * run stops right after the relay accepted that many mails, before writing
 * them `sent` (it prints `accepted <address>` and waits forever): the test
 * kills it there with SIGKILL. A test tool only: nothing in the service runs it.
 */
import { createLogger } from '../logger.ts';
import { MailDoor } from '../mail/door.ts';
import { InProcessSlots } from '../mail/slots.ts';
import { EmbeddedStore } from '../store/embedded/store.ts';
import { MongoStore } from '../store/mongo/store.ts';
import type { Store } from '../store/types.ts';
import { InvitationLinks } from './links.ts';
import { InvitationSender } from './sender.ts';

export interface SenderChildConfig {
  store: { kind: 'embedded'; dir: string } | { kind: 'mongo'; url: string; db: string };
  smtpUrl: string;
  at: string;
  /** What the child's real clock reads at its start (claims are compared with it); absent: the real time. */
  clock?: string;
  secretsKeyHex: string;
  publicUrl: string;
  hangAfterAccepted: number;
}

const config = JSON.parse(process.env.SENDER_CHILD ?? '{}') as SenderChildConfig;
const store: Store = config.store.kind === 'embedded' ? await EmbeddedStore.open(config.store.dir) : await MongoStore.connect(config.store.url, config.store.db);
const secretsKey = Buffer.from(config.secretsKeyHex, 'hex');
const links = new InvitationLinks(secretsKey);
const door = new MailDoor({ smtpUrl: config.smtpUrl, fromAddress: 'no-reply@shop.example', slots: new InProcessSlots({ ratePerMinute: 1_000_000 }) });
let accepted = 0;
const sender = new InvitationSender({
  store,
  mail: door,
  link: (inv) => `${config.publicUrl}/r/i/${links.token(inv)}`,
  secretsKey,
  publicUrl: config.publicUrl,
  logger: createLogger('silent'),
  ratePerMinute: 1_000_000,
  ...(config.clock !== undefined && { now: ((start: number, offset: number) => () => new Date(Date.now() - start + offset))(Date.now(), Date.parse(config.clock)) }),
  ...(config.hangAfterAccepted > 0 && {
    afterAccepted: async (inv) => {
      if (++accepted < config.hangAfterAccepted) return;
      process.stdout.write(`accepted ${inv.email}\n`);
      // Held here (a timer keeps the process alive) until the test kills it.
      setInterval(() => undefined, 1000);
      await new Promise<never>(() => undefined);
    },
  }),
});
const result = await sender.runDue(new Date(config.at));
process.stdout.write(`${JSON.stringify(result)}\n`);
await door.close();
await store.close();
