/**
 * Test code only: one sync of one source in a process of its own, on the
 * embedded store in DATA_DIR (or MongoDB: CHILD_MONGODB_URL, CHILD_MONGODB_DB), so that a test can kill it (SIGKILL) half-way.
 * The platform's self-signed CA comes in through NODE_EXTRA_CA_CERTS.
 */
import { createLogger } from '../../logger.ts';
import { SecretBox } from '../../secrets/secrets.ts';
import { EmbeddedStore } from '../../store/embedded/store.ts';
import { MongoStore } from '../../store/mongo/store.ts';
import type { Store } from '../../store/types.ts';
import { HttpClient } from '../http.ts';
import { syncSource } from '../sync.ts';

const env = process.env;
const store: Store = env.CHILD_MONGODB_URL ? await MongoStore.connect(env.CHILD_MONGODB_URL, env.CHILD_MONGODB_DB) : await EmbeddedStore.open(env.DATA_DIR!);
const url = env.PLATFORM_URL!;
const outcome = await syncSource(
  {
    store,
    box: new SecretBox(Buffer.from(env.SECRETS_KEY!, 'base64')),
    http: new HttpClient(),
    urls: { googleBusiness: url, googleToken: `${url}/token`, googleAuthorize: `${url}/auth`, googleAccounts: url, googleLocations: url, trustpilot: url, yelp: url, facebook: `${url}/v21.0`, g2: url },
    googleOAuth: null,
    logger: createLogger('silent'),
    pool: null,
  },
  env.SOURCE_ID!,
);
process.stdout.write(`${JSON.stringify(outcome.summary)}\n`);
await store.close();
