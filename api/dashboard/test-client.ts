/**
 * A browser-like client of the dashboard API for tests (shared by the dashboard
 * suites): its cookie jar,
 * the CSRF token it was given, our own Origin; every answer is checked
 * against the dashboard's OpenAPI document.
 */
import { request, type Agent } from 'node:https';
import type { TestService } from '../test/harness.ts';
import { checkDashboardResponse } from './validate.ts';

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown> & { error?: string; details?: { parameter: string; message: string }[] };
}

/** One browser-like client: its cookie jar, the CSRF token it was given, our own Origin. */
export class Client {
  cookies = new Map<string, string>();
  csrf = '';
  constructor(
    private readonly t: TestService,
    private readonly agent: Agent,
  ) {}

  get origin(): string {
    return this.t.service.config.publicUrl;
  }

  /** `body`: sent as JSON, or as it is when a string or bytes (a file upload, `text/csv` unless told). */
  send(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
    const cookie = this.cookieHeader();
    const raw = typeof body === 'string' || Buffer.isBuffer(body);
    const payload = body === undefined ? undefined : raw ? (body as string | Buffer) : JSON.stringify(body);
    return new Promise<Answer>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: this.t.service.ports.https,
          path,
          method,
          agent: this.agent,
          headers: {
            ...(cookie && { cookie }),
            ...(method !== 'GET' && { origin: this.origin, 'x-csrf-token': this.csrf }),
            ...(payload !== undefined && { 'content-type': raw ? 'text/csv' : 'application/json' }),
            ...headers,
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            for (const line of res.headers['set-cookie'] ?? []) {
              const [pair] = line.split(';');
              const [name, value] = pair!.split('=') as [string, string];
              if (/Max-Age=0/.test(line)) this.cookies.delete(name);
              else this.cookies.set(name, value);
            }
            const text = Buffer.concat(chunks).toString('utf8');
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text ? (JSON.parse(text) as Answer['body']) : {} });
          });
        },
      );
      req.on('error', reject);
      req.end(payload);
    }).then((answer) => {
      const problems = checkDashboardResponse(method, path, answer.status, Object.keys(answer.body).length === 0 && answer.status === 204 ? undefined : answer.body);
      if (problems.length > 0) throw new Error(`${method} ${path} → ${answer.status} breaks the dashboard document:\n  ${problems.join('\n  ')}\n  ${JSON.stringify(answer.body)}`);
      return answer;
    });
  }

  cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  /** `Import reviews`: the file is the request body. */
  upload(format: string, file: string | Buffer): Promise<Answer> {
    return this.send('POST', `/dashboard/api/reviews/import?format=${format}`, Buffer.from(file));
  }

  async start(): Promise<void> {
    const res = await this.send('GET', '/dashboard/api/session');
    this.csrf = res.body.csrfToken as string;
  }

  async signIn(email: string, password: string): Promise<Answer> {
    if (!this.csrf) await this.start();
    const res = await this.send('POST', '/dashboard/api/sign-in', { email, password });
    if (res.status === 200) this.csrf = res.body.csrfToken as string;
    return res;
  }
}
