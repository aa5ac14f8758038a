/** References between the document's component schemas. */
import type { JsonSchema } from './types.ts';

export const SCHEMA_PREFIX = '#/components/schemas/';

/** A reference to a component schema; lint.test.ts proves every one resolves. */
export function ref(name: string): JsonSchema {
  return { $ref: SCHEMA_PREFIX + name };
}
