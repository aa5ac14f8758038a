/**
 * Pages of GET /reviews kept as the bytes sent, for a store that says when an
 * organization's reviews change (ReviewStore.generation: the embedded store).
 * A page is kept under the organization, its generation and the query string
 * it answered, so it is exact: any write moves the generation and the next
 * request computes the page again. Bounded by bytes and by entries (many tiny
 * pages, e.g. offsets past the end, cost more in keys than in bodies); when
 * full it starts over.
 */
export class PageCache {
  private readonly pages = new Map<string, Buffer>();
  private bytes = 0;

  constructor(
    private readonly maxBytes = 16 * 1024 * 1024,
    private readonly maxEntries = 20_000,
  ) {}

  static key(orgId: string, generation: number, querystring: string): string {
    return `${orgId}\n${generation}\n${querystring}`;
  }

  get(key: string): Buffer | undefined {
    return this.pages.get(key);
  }

  set(key: string, body: Buffer): void {
    if (body.length > this.maxBytes / 16) return;
    if (this.bytes + body.length > this.maxBytes || this.pages.size >= this.maxEntries) {
      this.pages.clear();
      this.bytes = 0;
    }
    this.pages.set(key, body);
    this.bytes += body.length;
  }
}
