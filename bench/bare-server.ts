/**
 * The ceiling the service is compared with: a bare Node HTTPS server, same
 * certificate, answering each path with the exact status, bytes and headers the
 * service answered; a conditional request (If-None-Match) gets the answer
 * recorded under `URL If-None-Match-value` when there is one (the 304), and a
 * request with Accept-Encoding the answer recorded under `fixtureKey(URL,
 * value)` when there is one (a compressed answer; fixture.ts).
 * Run as its own process (compiled by the benchmark): `node dist/bench/bare-server.js FILE`.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import { type Fixture, fixtureKey } from './fixture.ts';

export type { Fixture } from './fixture.ts';

const fixture = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as Fixture;
const bodies = new Map(Object.entries(fixture.responses).map(([key, r]) => [key, { status: r.status ?? 200, body: Buffer.from(r.body, 'base64'), headers: r.headers }]));
const server = createServer({ cert: fixture.cert, key: fixture.key }, (req, res) => {
  const condition = req.headers['if-none-match'];
  const encoding = req.headers['accept-encoding'];
  const found = (condition && bodies.get(`${req.url} ${condition}`)) || (encoding && bodies.get(fixtureKey(req.url ?? '', encoding))) || bodies.get(req.url ?? '');
  if (!found) {
    res.writeHead(404).end();
    return;
  }
  if (found.status === 304) {
    res.writeHead(304, found.headers).end();
    return;
  }
  res.writeHead(found.status, { ...found.headers, 'content-length': found.body.length });
  res.end(found.body);
});
server.keepAliveTimeout = 5000;
server.listen(fixture.port, '127.0.0.1', () => process.stdout.write('ready\n'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
