/**
 * `npm test` starts here (scripts/test.ts): the system programs the tests need.
 * What is missing is installed, saying so: Debian packages with apt-get (as
 * root or with passwordless sudo), FerretDB with scripts/install-ferretdb.sh.
 * Where that cannot be done, the answer is the one command that would.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findFerretdb, INSTALL_HINT } from './ferretdb.ts';

/** Node's major version the project runs on (package.json `engines`, `.nvmrc`). */
export const NODE_MAJOR = 24;

/** The Debian fonts the screenshots and pixel comparisons are made with (Latin, Greek, Cyrillic; CJK). */
export const FONT_PACKAGES = ['fonts-noto-core', 'fonts-noto-cjk'];
const FONT_FAMILIES = ['Noto Sans', 'Noto Sans CJK JP'];

export type Prereqs = { ok: true; env: Record<string, string> } | { ok: false; message: string };

interface Need {
  /** What the tests use it for, for the log line. */
  what: string;
  packages: string[];
  present(): boolean;
  /** After apt-get: where Debian put it, when the environment still does not see it. */
  afterInstall?(): Record<string, string> | null;
}

function runs(command: string, args: string[]): boolean {
  const probe = spawnSync(command, args, { stdio: 'ignore', timeout: 30_000 });
  return !probe.error && probe.status === 0;
}

function fontFamilies(): string {
  const list = spawnSync('fc-list', ['--format', '%{family}\n'], { encoding: 'utf8', timeout: 30_000 });
  return list.error || list.status !== 0 ? '' : list.stdout;
}

function needs(): Need[] {
  const list: Need[] = [];
  if (!process.env.REDIS_URL) {
    list.push({
      what: 'redis-server (the tests start their own Redis)',
      packages: ['redis-server'],
      present: () => runs(process.env.REDIS_SERVER_BIN ?? 'redis-server', ['--version']),
      afterInstall: () => (runs('/usr/bin/redis-server', ['--version']) ? { REDIS_SERVER_BIN: '/usr/bin/redis-server' } : null),
    });
  }
  list.push({
    what: `Chromium (the end-to-end tests; ${process.env.CHROMIUM_PATH ? `CHROMIUM_PATH=${process.env.CHROMIUM_PATH}` : '/usr/bin/chromium'})`,
    packages: ['chromium'],
    present: () => existsSync(process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'),
    afterInstall: () => (existsSync('/usr/bin/chromium') ? { CHROMIUM_PATH: '/usr/bin/chromium' } : null),
  });
  list.push({
    what: `the fonts pages are drawn with in the tests (${FONT_FAMILIES.join(', ')})`,
    packages: FONT_PACKAGES,
    present: () => {
      const families = fontFamilies();
      return FONT_FAMILIES.every((family) => families.split(/[\n,]/).includes(family));
    },
  });
  return list;
}

/** `sudo ` when it is needed and works without a password, '' as root, null when neither. */
function privilege(): string | null {
  if (process.getuid?.() === 0) return '';
  return runs('sudo', ['-n', 'true']) ? 'sudo ' : null;
}

function sh(command: string): boolean {
  process.stdout.write(`npm test: $ ${command}\n`);
  const result = spawnSync('sh', ['-c', command], { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  return !result.error && result.status === 0;
}

function installPackages(packages: string[]): string | null {
  const oneCommand = `sudo apt-get install -y --no-install-recommends ${packages.join(' ')}`;
  if (!runs('apt-get', ['--version'])) {
    return `This machine has no apt-get. Install the equivalents of the Debian packages ${packages.join(', ')} with its package manager, then run npm test again.`;
  }
  const sudo = privilege();
  if (sudo === null) return `Not root and no passwordless sudo: run this once, then npm test again:\n    ${oneCommand}`;
  process.stdout.write(`npm test: installing ${packages.join(' ')} with apt-get\n`);
  // Wait for another apt-get on the machine rather than failing on its lock. apt-get's own timeout covers dpkg's lock,
  // not the package lists' lock that `update` takes: two npm tests started together (two clones on one machine) would
  // fail there, so ours take turns on a lock of their own (flock, from util-linux), for at most 15 minutes.
  const wait = '-o DPkg::Lock::Timeout=600';
  const install = `${sudo}apt-get ${wait} update -qq && ${sudo}apt-get ${wait} install -y -q --no-install-recommends ${packages.join(' ')}`;
  const command = runs('flock', ['--version']) ? `flock -w 900 ${join(tmpdir(), 'review-proof-apt.lock')} sh -c '${install}'` : install;
  if (!sh(command)) {
    return `apt-get could not install ${packages.join(', ')} (its output is above). The command is:\n    ${oneCommand}`;
  }
  return null;
}

function goVersion(): [number, number] | null {
  const probe = spawnSync('go', ['env', 'GOVERSION'], { encoding: 'utf8' });
  const m = /^go(\d+)\.(\d+)/.exec(probe.stdout ?? '');
  return probe.error || !m ? null : [Number(m[1]), Number(m[2])];
}

function ensureFerretdb(): string | null {
  if (findFerretdb().bin !== null) return null;
  const go = goVersion();
  if (go === null || go[0] < 1 || (go[0] === 1 && go[1] < 22)) {
    return `FerretDB (the MongoDB-compatible server the MongoDB store is tested against) is built from source and needs Go 1.22 or newer${go ? ` (found go${go.join('.')})` : ' (go is not on PATH)'}. Install Go (Debian 13 or Ubuntu 24.04: sudo apt-get install -y golang-go; Debian 12's golang-go is too old, take Go's own release archive), then run npm test again.`;
  }
  process.stdout.write('npm test: FerretDB is missing: building it (about two minutes on two cores)\n');
  if (!sh('bash scripts/install-ferretdb.sh')) return `Building FerretDB failed (its output is above). The command is:\n    ${INSTALL_HINT}`;
  const found = findFerretdb();
  return found.bin !== null ? null : `FerretDB was built but is not found (looked at ${found.looked.join(', ')}).`;
}

/** Checks, installs what is missing, and answers the environment the later stages need. */
export function ensurePrereqs(): Prereqs {
  const node = Number(process.versions.node.split('.')[0]);
  if (node < NODE_MAJOR) {
    return {
      ok: false,
      message: `Node ${process.versions.node} runs this; the project needs Node ${NODE_MAJOR}. Run it through npm (npm test): npm ci installs Node ${NODE_MAJOR} into node_modules and npm puts it first on the scripts' PATH.`,
    };
  }
  const env: Record<string, string> = {};
  const missing = needs().filter((need) => !need.present());
  if (missing.length > 0) {
    const packages = missing.flatMap((need) => need.packages);
    process.stdout.write(`npm test: missing ${missing.map((need) => need.what).join('; ')}\n`);
    const failure = installPackages(packages);
    if (failure !== null) return { ok: false, message: failure };
    for (const need of missing) {
      if (need.present()) continue;
      const found = need.afterInstall?.() ?? null;
      if (found === null) return { ok: false, message: `apt-get installed ${need.packages.join(' ')}, yet ${need.what} is still missing.` };
      process.stdout.write(`npm test: using ${Object.entries(found).map(([k, v]) => `${k}=${v}`).join(' ')} (not where the environment pointed)\n`);
      Object.assign(env, found);
      Object.assign(process.env, found);
    }
  }
  const ferretdb = ensureFerretdb();
  if (ferretdb !== null) return { ok: false, message: ferretdb };
  return { ok: true, env };
}
