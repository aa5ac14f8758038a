/**
 * TLS material: the PEM files of TLS_CERT_FILE/TLS_KEY_FILE, or a self-signed
 * certificate (selfsigned) created once in DATA_DIR and reused, so that a bare
 * `npm start` serves real HTTPS. A self-signed certificate is renewed when it
 * is within 30 days of expiring.
 */
import { X509Certificate } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { generate } from 'selfsigned';
import type { Config } from './config.ts';
import type { Logger } from './logger.ts';

export interface TlsMaterial {
  cert: string;
  key: string;
  selfSigned: boolean;
}

const RENEW_BEFORE_MS = 30 * 24 * 3600 * 1000;

async function writeAtomic(path: string, data: string, mode: number): Promise<void> {
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, data, { mode });
  await rename(tmp, path);
}

export async function loadTls(config: Config, logger: Logger): Promise<TlsMaterial> {
  if (config.tlsCertFile && config.tlsKeyFile) {
    const [cert, key] = await Promise.all([readFile(config.tlsCertFile, 'utf8'), readFile(config.tlsKeyFile, 'utf8')]).catch((err: Error) => {
      throw new Error(`TLS_CERT_FILE/TLS_KEY_FILE: cannot read the PEM files (${err.message})`);
    });
    return { cert, key, selfSigned: false };
  }
  await mkdir(config.dataDir, { recursive: true, mode: 0o700 });
  const certPath = join(config.dataDir, 'tls-cert.pem');
  const keyPath = join(config.dataDir, 'tls-key.pem');
  try {
    const [cert, key] = await Promise.all([readFile(certPath, 'utf8'), readFile(keyPath, 'utf8')]);
    const validTo = Date.parse(new X509Certificate(cert).validTo);
    if (validTo - Date.now() > RENEW_BEFORE_MS) return { cert, key, selfSigned: true };
    logger.info('self-signed certificate expires soon: creating a new one');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const notAfter = new Date(Date.now() + 825 * 24 * 3600 * 1000);
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keySize: 2048,
    algorithm: 'sha256',
    notAfterDate: notAfter,
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
          { type: 7, ip: '::1' },
        ],
      },
    ],
  });
  await writeAtomic(keyPath, pems.private, 0o600);
  await writeAtomic(certPath, pems.cert, 0o644);
  logger.info({ certPath }, 'created a self-signed TLS certificate');
  return { cert: pems.cert, key: pems.private, selfSigned: true };
}
