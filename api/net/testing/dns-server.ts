/**
 * Test helper (not a test): a tiny DNS server on loopback UDP (RFC 1035, the
 * part c-ares needs): A and AAAA answers for the names it is given, NXDOMAIN
 * for names it does not know, and no answer at all for the names marked
 * `silent` (a DNS that never answers). It records every question it gets.
 */
import { createSocket } from 'node:dgram';
import type { AddressInfo } from 'node:net';
import ipaddr from 'ipaddr.js';

const TYPE_A = 1;
const TYPE_AAAA = 28;

/**
 * Addresses (IPv4 and IPv6 mixed) of each name, or `silent`; `{ addresses, silentFor: 'AAAA' }`
 * answers A but never AAAA (a server that drops one type). Names are matched without case.
 */
export type DnsAnswer = readonly string[] | 'silent' | { addresses: readonly string[]; silentFor: 'A' | 'AAAA' };
export type DnsTable = Record<string, DnsAnswer>;

export interface DnsQuestion {
  name: string;
  type: 'A' | 'AAAA' | number;
}

export interface TestDnsServer {
  /** `127.0.0.1:<port>`, as `Resolver.setServers` takes it. */
  server: string;
  questions: DnsQuestion[];
  /** The names asked, once each, in the order first asked. */
  names(): string[];
  /** Changes a name's answer from now on (a name that stops answering, a rebinding). */
  set(name: string, answer: DnsAnswer): void;
  close(): Promise<void>;
}

/** The question's name and type, and where the question ends; null when the packet is not a query we read. */
function readQuestion(packet: Buffer): { name: string; type: number; end: number } | null {
  if (packet.length < 12 || packet.readUInt16BE(4) < 1) return null;
  const labels: string[] = [];
  let at = 12;
  for (;;) {
    if (at >= packet.length) return null;
    const length = packet[at]!;
    at++;
    if (length === 0) break;
    if (length > 63 || at + length > packet.length) return null;
    labels.push(packet.toString('latin1', at, at + length));
    at += length;
  }
  if (at + 4 > packet.length) return null;
  return { name: labels.join('.').toLowerCase(), type: packet.readUInt16BE(at), end: at + 4 };
}

function answerRecord(type: number, address: string): Buffer {
  const data = Buffer.from(ipaddr.parse(address).toByteArray());
  const head = Buffer.alloc(12);
  head.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
  head.writeUInt16BE(type, 2);
  head.writeUInt16BE(1, 4); // IN
  head.writeUInt32BE(60, 6); // TTL
  head.writeUInt16BE(data.length, 10);
  return Buffer.concat([head, data]);
}

export async function startDnsServer(table: DnsTable): Promise<TestDnsServer> {
  const records = new Map(Object.entries(table).map(([name, value]) => [name.toLowerCase().replace(/\.$/, ''), value]));
  const socket = createSocket('udp4');
  const questions: DnsQuestion[] = [];
  socket.on('message', (packet, from) => {
    const q = readQuestion(packet);
    if (!q) return;
    questions.push({ name: q.name, type: q.type === TYPE_A ? 'A' : q.type === TYPE_AAAA ? 'AAAA' : q.type });
    const entry = records.get(q.name);
    if (entry === 'silent') return;
    if (entry !== undefined && 'silentFor' in entry && entry.silentFor === (q.type === TYPE_A ? 'A' : q.type === TYPE_AAAA ? 'AAAA' : null)) return;
    const known = entry !== undefined && 'silentFor' in entry ? entry.addresses : entry;
    const family = q.type === TYPE_A ? 'ipv4' : q.type === TYPE_AAAA ? 'ipv6' : null;
    const answers = known === undefined || family === null ? [] : known.filter((a) => ipaddr.parse(a).kind() === family).map((a) => answerRecord(q.type, a));
    const header = Buffer.alloc(12);
    header.writeUInt16BE(packet.readUInt16BE(0), 0); // the query's id
    // QR, the query's RD, RA; NXDOMAIN for a name we do not know.
    header.writeUInt16BE(0x8000 | (packet.readUInt16BE(2) & 0x0100) | 0x0080 | (known === undefined ? 3 : 0), 2);
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(answers.length, 6);
    socket.send(Buffer.concat([header, packet.subarray(12, q.end), ...answers]), from.port, from.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const { port } = socket.address() as AddressInfo;
  return {
    server: `127.0.0.1:${port}`,
    questions,
    names: () => [...new Set(questions.map((q) => q.name))],
    set: (name, answer) => void records.set(name.toLowerCase().replace(/\.$/, ''), answer),
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
