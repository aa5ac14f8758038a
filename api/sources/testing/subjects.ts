/** Test code only: the stores a sources test runs on (embedded, and MongoDB on FerretDB). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedStore } from '../../store/embedded/store.ts';
import { mongoTargets, openMongoStore, type MongoTarget } from '../../test/mongo-suites.ts';
import type { Store } from '../../store/types.ts';

export interface StoreSubject {
  name: string;
  target?: MongoTarget;
  open(): Promise<{ store: Store; cleanup(): Promise<void> }>;
}

export function storeSubjects(label: string): StoreSubject[] {
  const subjects: StoreSubject[] = [
    {
      name: 'embedded',
      async open() {
        const dir = mkdtempSync(join(tmpdir(), `${label}-`));
        const store = await EmbeddedStore.open(dir);
        return {
          store,
          async cleanup() {
            await store.close().catch(() => undefined);
            rmSync(dir, { recursive: true, force: true });
          },
        };
      },
    },
  ];
  for (const target of mongoTargets()) {
    subjects.push({
      name: `mongodb on ${target.name}`,
      target,
      async open() {
        const store = await openMongoStore(target, label);
        return {
          store,
          async cleanup() {
            await store.dropDatabase();
            await store.close();
          },
        };
      },
    });
  }
  return subjects;
}
