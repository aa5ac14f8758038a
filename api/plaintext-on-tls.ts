/**
 * Plain HTTP sent to the HTTPS port (`curl http://host:8443/…`) would get an
 * empty reply: the TLS layer drops what is not a handshake. Instead the first
 * byte of every connection is looked at: a TLS record starts with 0x16 (a
 * handshake) and goes on to TLS as usual; anything else is answered with the
 * JSON https_required error in plain HTTP and the connection is closed, so
 * people learn what is wrong. Nothing of such a request is processed.
 */
import { randomUUID } from 'node:crypto';
import type { Server as HttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import { httpsRequired } from './errors.ts';

const TLS_HANDSHAKE = 0x16;
/** A connection that sends nothing at all within this time is closed. */
const FIRST_BYTE_TIMEOUT_MS = 10_000;

function refusePlaintext(socket: Socket, head: Buffer): void {
  const body = JSON.stringify(httpsRequired().toJSON());
  const isHead = head.subarray(0, 5).toString('latin1') === 'HEAD ';
  socket.end(
    `HTTP/1.1 403 Forbidden\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${randomUUID()}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${isHead ? '' : body}`,
  );
  // Whatever else the client sends is not read.
  socket.on('data', () => undefined);
}

/** Puts the first-byte check in front of the server's own TLS connection handling. */
export function answerPlaintextOnTls(server: HttpsServer): void {
  const tlsListeners = server.listeners('connection') as ((socket: Socket) => void)[];
  server.removeAllListeners('connection');
  server.on('connection', function sniffFirstByte(socket: Socket) {
    // Until TLS (or the refusal) takes over, this code owns the socket's errors and its idle time.
    const drop = (): void => void socket.destroy();
    socket.on('error', drop);
    socket.setTimeout(FIRST_BYTE_TIMEOUT_MS);
    socket.once('timeout', drop);
    socket.once('readable', () => {
      const chunk = socket.read() as Buffer | null;
      socket.setTimeout(0);
      socket.off('timeout', drop);
      if (chunk === null || chunk.length === 0) return void socket.destroy();
      // Handed back: the TLS socket reads what is buffered before reading on.
      socket.unshift(chunk);
      if (chunk[0] === TLS_HANDSHAKE) for (const listener of tlsListeners) listener.call(server, socket);
      else refusePlaintext(socket, chunk);
    });
  });
}
