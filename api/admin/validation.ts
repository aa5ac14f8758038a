/** Input checks shared by the admin API's resources: each failure is a 400 with details. */
import { badRequest, type ParameterDetail } from '../errors.ts';

export class Checker {
  readonly details: ParameterDetail[] = [];

  fail(parameter: string, message: string): void {
    this.details.push({ parameter, message });
  }

  /** Throws the collected problems as one 400. */
  done(): void {
    if (this.details.length > 0) throw badRequest(`${this.details.length} invalid field(s).`, this.details);
  }

  string(body: Record<string, unknown>, name: string, opts: { required?: boolean; max?: number } = {}): string | undefined {
    const value = body[name];
    if (value === undefined || value === null) {
      if (opts.required) this.fail(name, 'is required');
      return undefined;
    }
    if (typeof value !== 'string') {
      this.fail(name, 'must be a string');
      return undefined;
    }
    const trimmed = value.trim();
    if (opts.required && trimmed === '') this.fail(name, 'must not be empty');
    if (trimmed.length > (opts.max ?? 200)) this.fail(name, `must be at most ${opts.max ?? 200} characters`);
    return trimmed;
  }

  oneOf<T extends string>(body: Record<string, unknown>, name: string, allowed: readonly T[], required = false): T | undefined {
    const value = body[name];
    if (value === undefined || value === null) {
      if (required) this.fail(name, `is required (one of ${allowed.join(', ')})`);
      return undefined;
    }
    if (typeof value !== 'string' || !allowed.includes(value.toLowerCase() as T) && !allowed.includes(value as T)) {
      this.fail(name, `must be one of ${allowed.join(', ')}`);
      return undefined;
    }
    return (allowed.includes(value as T) ? value : value.toLowerCase()) as T;
  }

  integer(body: Record<string, unknown>, name: string, min: number, max: number): number | null | undefined {
    const value = body[name];
    if (value === undefined) return undefined;
    if (value === null) return null;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      this.fail(name, `must be an integer from ${min} to ${max}`);
      return undefined;
    }
    return value;
  }

  boolean(body: Record<string, unknown>, name: string): boolean | undefined {
    const value = body[name];
    if (value === undefined) return undefined;
    if (typeof value !== 'boolean') {
      this.fail(name, 'must be true or false');
      return undefined;
    }
    return value;
  }

  httpsUrl(body: Record<string, unknown>, name: string): string | null | undefined {
    const value = body[name];
    if (value === undefined) return undefined;
    if (value === null || value === '') return null;
    if (typeof value !== 'string' || value.length > 2000) {
      this.fail(name, 'must be an https URL');
      return undefined;
    }
    try {
      if (new URL(value).protocol === 'https:') return value;
    } catch {
      /* reported below */
    }
    this.fail(name, 'must be an https URL');
    return undefined;
  }
}

export function objectBody(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badRequest('The request body must be a JSON object.');
  return body as Record<string, unknown>;
}
