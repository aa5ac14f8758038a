/**
 * The MongoDB servers a test file runs its MongoDB suites against: the
 * FerretDB that global-setup started (always, or a loud named skip when there
 * is none outside CI), plus a real MongoDB whenever MONGODB_URL is set.
 */
import { describe, inject } from 'vitest';
import { MongoStore } from '../store/mongo/store.ts';
import { uniqueDbName } from './ferretdb.ts';

export interface MongoTarget {
  /** e.g. "FerretDB 1.24" or "MongoDB (MONGODB_URL)". */
  name: string;
  /** '' = not available: `missing` says why. */
  url: string;
  missing: string;
}

export function ferretdbTarget(): MongoTarget {
  const f = inject('ferretdb');
  return { name: 'FerretDB 1.24 (SQLite)', url: f.url, missing: f.missing };
}

export function mongoTargets(): MongoTarget[] {
  const targets = [ferretdbTarget()];
  if (process.env.MONGODB_URL) targets.push({ name: 'MongoDB (MONGODB_URL)', url: process.env.MONGODB_URL, missing: '' });
  return targets;
}

/**
 * `describe` on a target, or a skipped suite whose name says what was skipped
 * and how to get the server (global-setup has already failed the run in CI).
 */
export function describeOn(target: MongoTarget, name: string, fn: () => void): void {
  if (target.url) describe(`${name} [${target.name}]`, fn);
  else describe.skip(`${name} [SKIPPED: ${target.missing}]`, fn);
}

/** A MongoStore on a database of its own on the target. */
export function openMongoStore(target: MongoTarget, label: string): Promise<MongoStore> {
  return MongoStore.connect(target.url, uniqueDbName(label));
}
