/**
 * Test helper run as a child process by enable-resume.test.ts: opens the
 * embedded store in DATA_DIR and sends a `webhook.test` to ENDPOINT_ID
 * through the service, as the admin API does, until it is killed (the
 * receiver holds the request).
 */
import { createLogger } from '../../logger.ts';
import { SecretBox } from '../../secrets/secrets.ts';
import { EmbeddedStore } from '../../store/embedded/store.ts';
import { createDeliveryClient } from '../deliver.ts';
import { Dispatcher } from '../dispatcher.ts';
import { parseAllowNetworks } from '../networks.ts';
import { WebhooksService } from '../service.ts';

const store = await EmbeddedStore.open(process.env.DATA_DIR!);
const box = new SecretBox(Buffer.from(process.env.BOX_KEY!, 'hex'));
const allow = parseAllowNetworks('127.0.0.0/8');
const client = createDeliveryClient({ allow, ca: process.env.CA!, timeoutMs: 600_000 });
const dispatcher = new Dispatcher({ store, box, client, logger: createLogger('silent') });
const service = new WebhooksService({ store, box, dispatcher, allow });
process.stdout.write('sending\n');
await service.test(process.env.ENDPOINT_ID!);
process.stdout.write('answered\n');
