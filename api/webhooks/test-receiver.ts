/**
 * Test helper (not a test): a real HTTPS receiver on loopback with a
 * self-signed certificate whose names include the made-up host names the
 * tests resolve through a stub, and a record of every request it got.
 */
import { createServer, type Server } from 'node:https';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generate } from 'selfsigned';

export interface TestCert {
  cert: string;
  key: string;
}

/** Names the certificate is valid for, besides localhost, 127.0.0.1 and ::1. */
export const TEST_HOST_NAMES = ['receiver.test', 'rebind.test', 'other.test'];

export async function testCert(): Promise<TestCert> {
  const pems = await generate([{ name: 'commonName', value: 'receiver.test' }], {
    keySize: 2048,
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2 as const, value: 'localhost' },
          ...TEST_HOST_NAMES.map((value) => ({ type: 2 as const, value })),
          { type: 7 as const, ip: '127.0.0.1' },
          { type: 7 as const, ip: '::1' },
        ],
      },
    ],
  });
  return { cert: pems.cert, key: pems.private };
}

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

export type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

export interface Receiver {
  port: number;
  /** `https://<host>:<port>/hook` */
  url(host?: string): string;
  received: Received[];
  handler: Handler;
  close(): Promise<void>;
}

const ok: Handler = (_req, res) => {
  res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
};

export async function startReceiver(cert: TestCert, handler: Handler = ok, host = '127.0.0.1'): Promise<Receiver> {
  const server: Server = createServer({ cert: cert.cert, key: cert.key });
  const receiver: Receiver = {
    port: 0,
    url: (name = host.includes(':') ? `[${host}]` : host) => `https://${name}:${receiver.port}/hook`,
    received: [],
    handler,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      receiver.received.push({ headers: req.headers, body });
      receiver.handler(req, res, body);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
  receiver.port = (server.address() as AddressInfo).port;
  return receiver;
}

/** Headers as `standardwebhooks` wants them: one string per name. */
export function flatHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  return flat;
}
