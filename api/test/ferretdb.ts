/**
 * FerretDB for the tests: the MongoDB-compatible server (SQLite backend) that
 * the MongoDB store is judged against on every `npm test` (CONTRACT §10).
 * Found through FERRETDB_BIN, else `ferretdb` on PATH, else
 * `$(go env GOPATH)/bin/ferretdb`; built by scripts/install-ferretdb.sh.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './global-setup.ts';

export const INSTALL_HINT = 'bash scripts/install-ferretdb.sh (builds FerretDB 1.24.0 into $(go env GOPATH)/bin/ferretdb), or set FERRETDB_BIN';

function runs(bin: string): boolean {
  const probe = spawnSync(bin, ['--version'], { encoding: 'utf8', timeout: 10_000 });
  return !probe.error && probe.status === 0;
}

/** The FerretDB binary, or null with the places looked at. */
export function findFerretdb(): { bin: string } | { bin: null; looked: string[] } {
  const looked: string[] = [];
  const fromEnv = process.env.FERRETDB_BIN;
  if (fromEnv) {
    if (runs(fromEnv)) return { bin: fromEnv };
    looked.push(`FERRETDB_BIN=${fromEnv} (does not run)`);
    return { bin: null, looked };
  }
  if (runs('ferretdb')) return { bin: 'ferretdb' };
  looked.push('ferretdb on PATH');
  const gopath = spawnSync('go', ['env', 'GOPATH'], { encoding: 'utf8' });
  if (!gopath.error && gopath.status === 0 && gopath.stdout.trim()) {
    const candidate = join(gopath.stdout.trim().split(':')[0]!, 'bin', 'ferretdb');
    if (existsSync(candidate) && runs(candidate)) return { bin: candidate };
    looked.push(candidate);
  } else {
    looked.push('$(go env GOPATH)/bin/ferretdb (go is not installed)');
  }
  return { bin: null, looked };
}

export interface RunningFerretdb {
  url: string;
  port: number;
  process: ChildProcess;
  dir: string;
  stop(): Promise<void>;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * Starts FerretDB on a free loopback port (or `port`, to restart one in place)
 * with its SQLite files in `dir`; resolves once it accepts connections.
 */
export async function startFerretdb(bin: string, options: { port?: number; dir?: string } = {}): Promise<RunningFerretdb> {
  const port = options.port ?? (await freePort());
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'ferretdb-test-'));
  const child = spawn(
    bin,
    ['--handler=sqlite', `--sqlite-url=file:${dir}/`, `--listen-addr=127.0.0.1:${port}`, `--state-dir=${dir}`, '--telemetry=disable', '--debug-addr=-', '--log-level=WARN'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let err = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    err = (err + chunk.toString()).slice(-4000);
  });
  let exited: number | null | undefined;
  child.once('exit', (code) => (exited = code));
  const deadline = Date.now() + 20_000;
  while (!(await accepts(port))) {
    if (exited !== undefined) throw new Error(`ferretdb exited with ${exited} at start-up: ${err}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`ferretdb did not accept connections on port ${port} within 20 s: ${err}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url: `mongodb://127.0.0.1:${port}/`,
    port,
    process: child,
    dir,
    async stop() {
      if (exited === undefined) {
        const gone = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
        await gone;
        clearTimeout(timer);
      }
    },
  };
}

/** A database name no other test file uses on the shared server. */
export function uniqueDbName(label: string): string {
  return `rp_${label.replace(/[^A-Za-z0-9_]/g, '_')}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
}
