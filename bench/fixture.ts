/** The recorded answers the bare and floor servers serve (bench/bare-server.ts, bench/floor-server.ts). */
export interface Fixture {
  cert: string;
  key: string;
  port: number;
  /** By URL, by `URL If-None-Match-value` for a conditional request's answer, or by fixtureKey for a compressed one. */
  responses: Record<string, { status?: number; body: string; headers: Record<string, string> }>;
}

/** The key of an answer recorded for a request with this Accept-Encoding (none: the URL itself). */
export function fixtureKey(url: string, acceptEncoding: string | undefined): string {
  return acceptEncoding ? `${url} accept-encoding:${acceptEncoding}` : url;
}
