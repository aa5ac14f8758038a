/**
 * Reading what a local SMTP sink received, for the mail tests (no mail parser
 * is installed): headers unfolded (RFC 5322 §2.2.3), RFC 2047 encoded words
 * decoded, a multipart body split into its parts, and each part's
 * quoted-printable or base64 transfer encoding undone. Enough for the mails
 * this service sends (nodemailer's multipart/alternative), not a general
 * MIME parser.
 */
export interface MimePart {
  /** Header names lower-cased; a header that appears several times keeps every value. */
  headers: Map<string, string[]>;
  /** The decoded body (for a multipart part: its preamble). */
  body: string;
  parts: MimePart[];
}

export function header(part: MimePart, name: string): string | undefined {
  return part.headers.get(name.toLowerCase())?.[0];
}

/** RFC 2047: `=?utf-8?B?…?=` and `=?utf-8?Q?…?=`, adjacent encoded words joined without the space between them. */
export function decodeWords(value: string): string {
  return value
    .replace(/(\?=)\s+(=\?)/g, '$1$2')
    .replace(/=\?([^?]+)\?([BbQq])\?([^?]*)\?=/g, (_all, charset: string, enc: string, text: string) => {
      const bytes = enc.toUpperCase() === 'B' ? Buffer.from(text, 'base64') : Buffer.from(text.replace(/_/g, ' ').replace(/=([0-9A-Fa-f]{2})/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16))), 'latin1');
      return new TextDecoder(charset.toLowerCase()).decode(bytes);
    });
}

function decodeBody(body: string, encoding: string | undefined): string {
  switch ((encoding ?? '7bit').toLowerCase()) {
    case 'base64':
      return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
    case 'quoted-printable': {
      const soft = body.replace(/=\r?\n/g, '');
      const bytes: number[] = [];
      for (let i = 0; i < soft.length; i++) {
        if (soft[i] === '=' && /^[0-9A-Fa-f]{2}$/.test(soft.slice(i + 1, i + 3))) {
          bytes.push(parseInt(soft.slice(i + 1, i + 3), 16));
          i += 2;
        } else bytes.push(...Buffer.from(soft[i]!, 'utf8'));
      }
      return Buffer.from(bytes).toString('utf8');
    }
    default:
      return body;
  }
}

export function parseMime(raw: string): MimePart {
  const text = raw.replace(/\r\n/g, '\n');
  const split = text.indexOf('\n\n');
  const head = split === -1 ? text : text.slice(0, split);
  const rest = split === -1 ? '' : text.slice(split + 2);
  const headers = new Map<string, string[]>();
  for (const line of head.replace(/\n[ \t]+/g, ' ').split('\n')) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    headers.set(name, [...(headers.get(name) ?? []), line.slice(colon + 1).trim()]);
  }
  const type = headers.get('content-type')?.[0] ?? 'text/plain';
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (/^multipart\//i.test(type) && boundary) {
    const chunks = rest.split(`--${boundary}`);
    const parts = chunks
      .slice(1)
      .filter((chunk) => !chunk.startsWith('--'))
      .map((chunk) => parseMime(chunk.replace(/^\n/, '').replace(/\n$/, '')));
    return { headers, body: chunks[0] ?? '', parts };
  }
  return { headers, body: decodeBody(rest, headers.get('content-transfer-encoding')?.[0]), parts: [] };
}

/** The first part (depth first) whose Content-Type starts with `type`. */
export function partOf(mail: MimePart, type: string): MimePart | undefined {
  if (mail.parts.length === 0) return (header(mail, 'content-type') ?? 'text/plain').toLowerCase().startsWith(type) ? mail : undefined;
  for (const part of mail.parts) {
    const found = partOf(part, type);
    if (found) return found;
  }
  return undefined;
}
