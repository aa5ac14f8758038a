/**
 * A store that cannot answer right now (its server went away): the API answers
 * 503 service_unavailable with Retry-After instead of a 500, and the next
 * request tries again, so service resumes by itself when the server returns.
 */
export class StoreUnavailableError extends Error {
  constructor(
    readonly store: string,
    options?: { cause?: unknown },
  ) {
    super(`the ${store} store is not answering`, options);
    this.name = 'StoreUnavailableError';
  }
}

/**
 * The same object with every method's rejection passed through `translate`
 * (which returns the error to throw instead), e.g. driver network errors
 * turned into StoreUnavailableError. Methods stay plain functions returning
 * the store's own promise.
 */
export function translateErrors<T extends object>(target: T, translate: (err: unknown) => unknown): T {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(target)) {
    out[name] =
      typeof value === 'function'
        ? (...args: unknown[]) =>
            (value as (...a: unknown[]) => Promise<unknown>).apply(target, args).catch((err: unknown) => {
              throw translate(err);
            })
        : value;
  }
  return out as T;
}
