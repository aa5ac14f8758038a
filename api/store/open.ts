/** Picks the store: MongoDB when MONGODB_URL is set, else the embedded store in DATA_DIR. */
import type { Config } from '../config.ts';
import { EmbeddedStore } from './embedded/store.ts';
import { MongoStore } from './mongo/store.ts';
import type { Store } from './types.ts';

export async function openStore(config: Config): Promise<Store> {
  if (config.mongodbUrl) return MongoStore.connect(config.mongodbUrl);
  return EmbeddedStore.open(config.dataDir);
}
