/**
 * `npm test` starts here: the system programs the tests need, each with the
 * Debian package that provides it (FerretDB: the project's build script).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { findFerretdb, INSTALL_HINT } from './ferretdb.ts';

const problems: string[] = [];
const [major, minor] = process.versions.node.split('.').map(Number) as [number, number];
if (major < 20 || (major === 20 && minor < 19)) problems.push(`Node ${process.versions.node} is too old: install Node 20.19 or newer.`);
if (!process.env.REDIS_URL) {
  const redis = spawnSync(process.env.REDIS_SERVER_BIN ?? 'redis-server', ['--version'], { encoding: 'utf8' });
  if (redis.error || redis.status !== 0) problems.push('redis-server is missing: apt-get install -y redis-server (or set REDIS_URL to a Redis the tests may use).');
}
const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
if (!existsSync(chromium)) problems.push(`Chromium is missing at ${chromium}: apt-get install -y chromium (or set CHROMIUM_PATH).`);

const ferretdb = findFerretdb();
if (ferretdb.bin === null) {
  const message = `FerretDB is missing (looked at ${ferretdb.looked.join(', ')}): ${INSTALL_HINT}.`;
  if (process.env.CI) problems.push(message);
  else process.stderr.write(`*** The MongoDB suites will be SKIPPED: ${message}\n`);
}

if (problems.length > 0) {
  process.stderr.write(`Cannot run the tests:\n${problems.map((p) => `  - ${p}`).join('\n')}\n`);
  process.exit(1);
}
