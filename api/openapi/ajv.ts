/**
 * One Ajv (JSON Schema 2020-12, the dialect of OpenAPI 3.1) that knows the
 * document's component schemas, so any schema of the document compiles as it
 * stands, `$ref`s included.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import type { JsonSchema, OpenApiDocument } from './types.ts';

/** Base URI the component schemas are registered under. */
const DOCUMENT_ID = 'urn:review-proof:openapi';

export interface SchemaCompiler {
  compile(schema: JsonSchema): ValidateFunction;
}

/** Local refs (`#/components/...`) point into the document wherever the schema is compiled. */
function anchorRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(anchorRefs);
  if (typeof node !== 'object' || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    out[key] = key === '$ref' && typeof value === 'string' && value.startsWith('#/') ? DOCUMENT_ID + value : anchorRefs(value);
  }
  return out;
}

export function createSchemaCompiler(doc: OpenApiDocument): SchemaCompiler {
  // strict: a typo in a schema keyword is a build failure, not a silently ignored rule.
  const ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true });
  formats.default(ajv);
  // The wrapper only carries the components for $ref resolution; it is never a validator itself.
  ajv.addKeyword({ keyword: 'components' });
  ajv.addSchema({ $id: DOCUMENT_ID, components: { schemas: doc.components.schemas } });
  const cache = new Map<JsonSchema, ValidateFunction>();
  return {
    compile(schema) {
      let validate = cache.get(schema);
      if (!validate) {
        validate = ajv.compile(anchorRefs(schema) as object);
        cache.set(schema, validate);
      }
      return validate;
    },
  };
}
