/**
 * `npm start`: validate the configuration, start the service, create the demo
 * on an empty embedded store, and shut down gracefully on SIGTERM/SIGINT.
 */
import cluster from 'node:cluster';
import { isAbsolute, join, relative } from 'node:path';
import { printsBanner, runPrimary } from './cluster.ts';
import { ConfigError, loadConfig } from './config.ts';
import { ensureDemo } from './demo/seed.ts';
import { startService } from './server.ts';

/** A path as the person who typed `npm start` would type it: relative to the working directory when inside it. */
function shown(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel === '' ? '.' : rel.startsWith('..') || isAbsolute(rel) ? path : `./${rel}`;
}

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`Configuration error: ${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  if (config.workers > 1 && cluster.isPrimary) return runPrimary(config);
  const service = await startService(config);
  const { logger } = service;

  const lines = [
    '',
    `Review API listening on ${service.baseUrl} (public URL ${config.publicUrl})`,
    `  API base URL:   ${config.publicUrl}/api/v1`,
    `  HTTPS port:     ${service.ports.https} (PORT)`,
    service.ports.http === null
      ? '  HTTP port:      off (HTTP_PORT=0)'
      : `  HTTP port:      ${service.ports.http} (HTTP_PORT): plain HTTP, answers only 403 https_required`,
    `  Admin API:      ${service.adminUrl} (ADMIN_PORT, loopback only; token in ${config.adminToken ? 'ADMIN_TOKEN' : shown(join(config.dataDir, 'admin-token'))})`,
    `  Store:          ${service.store.kind}${service.store.kind === 'embedded' ? ` (${shown(config.dataDir)})` : ''}`,
    `  Rate limits:    ${config.redisUrl ? 'Redis (shared)' : 'in process'}`,
  ];
  if (service.store.kind === 'embedded') {
    const demo = await ensureDemo(service.store);
    lines.push(`  Demo org:       ${demo.orgId} (Growth plan)`);
    lines.push(
      demo.apiKey
        ? `  Demo API key:   ${demo.apiKey}   <- shown once, store it now`
        : `  Demo API key:   shown at first start only; make another: npm run admin -- keys create --org ${demo.orgId} --name "Dev"`,
    );
    // One demo widget per layout (api/demo/seed.ts), carousel first.
    if (demo.widgets.length > 0) lines.push(`  Demo widgets:   ${demo.widgets.map((w) => `${w.id} (${w.layout})`).join(', ')}`);
    lines.push(`  Demo page:      ${config.publicUrl}/demo`);
    lines.push(`  Dashboard:      ${config.publicUrl}/dashboard`);
    lines.push(
      demo.ownerPassword
        ? `  Demo owner:     owner@demo.example  password ${demo.ownerPassword}   <- shown once, store it now`
        : `  Demo owner:     owner@demo.example (password shown at first start only; add a person: npm run admin -- users create --org ${demo.orgId} --email you@example.com --role owner)`,
    );
    if (demo.apiKey) {
      // The certificate is checked, as in the README: never curl -k.
      const ca = config.tlsCertFile === null ? `--cacert ${shown(join(config.dataDir, 'tls-cert.pem'))} ` : '';
      lines.push('', `  Try: curl ${ca}-H "Authorization: Bearer ${demo.apiKey}" ${config.publicUrl}/api/v1/reviews/stats`);
    }
  }
  if (config.workers > 1) lines.push(`  Workers:        ${config.workers} processes (WORKERS)`);
  if (printsBanner()) process.stdout.write(`${lines.join('\n')}\n\n`);

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'received signal');
    const hard = setTimeout(() => {
      logger.error('shutdown took too long: exiting');
      process.exit(1);
    }, 9500);
    hard.unref();
    service.close().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((err: unknown) => {
  process.stderr.write(`Failed to start: ${(err as Error).message}\n`);
  process.exit(1);
});
