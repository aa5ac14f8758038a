/**
 * The ceiling the service is compared with: a bare Node HTTPS server, same
 * certificate, answering each path with the exact bytes and headers-size the
 * service answered. Run as its own process: `tsx bench/bare-server.ts FILE`.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';

export interface Fixture {
  cert: string;
  key: string;
  port: number;
  responses: Record<string, { body: string; headers: Record<string, string> }>;
}

const fixture = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as Fixture;
const bodies = new Map(Object.entries(fixture.responses).map(([path, r]) => [path, { body: Buffer.from(r.body, 'base64'), headers: r.headers }]));
const server = createServer({ cert: fixture.cert, key: fixture.key }, (req, res) => {
  const found = bodies.get(req.url ?? '');
  if (!found) {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(200, { ...found.headers, 'content-length': found.body.length });
  res.end(found.body);
});
server.keepAliveTimeout = 5000;
server.listen(fixture.port, '127.0.0.1', () => process.stdout.write('ready\n'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
