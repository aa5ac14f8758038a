/**
 * The slice of the OpenAPI 3.1 object model this service uses. Only what the
 * document, the parameter validator and the response validator read is typed;
 * a JSON Schema stays an open record because OpenAPI 3.1 schemas are full
 * JSON Schema 2020-12.
 */

export interface JsonSchema {
  readonly [keyword: string]: unknown;
  readonly $ref?: string;
  readonly type?: string | readonly string[];
  readonly title?: string;
  readonly description?: string;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly pattern?: string;
  readonly format?: string;
  readonly default?: unknown;
  readonly examples?: readonly unknown[];
}

export interface Reference {
  readonly $ref: string;
}

export interface ExampleObject {
  readonly summary?: string;
  readonly description?: string;
  readonly value: unknown;
}

export interface MediaType {
  readonly schema: JsonSchema;
  readonly examples?: Readonly<Record<string, ExampleObject>>;
}

export interface HeaderObject {
  readonly description: string;
  readonly required?: boolean;
  readonly schema: JsonSchema;
  readonly example?: unknown;
}

export interface ResponseObject {
  readonly description: string;
  readonly headers?: Readonly<Record<string, HeaderObject | Reference>>;
  readonly content?: Readonly<Record<string, MediaType>>;
}

export interface ParameterObject {
  readonly name: string;
  readonly in: 'query' | 'path' | 'header';
  readonly description: string;
  readonly required?: boolean;
  readonly schema: JsonSchema;
  readonly example?: unknown;
}

export interface OperationObject {
  readonly operationId: string;
  readonly summary: string;
  readonly description: string;
  readonly tags: readonly string[];
  readonly security?: readonly Readonly<Record<string, readonly string[]>>[];
  readonly parameters?: readonly ParameterObject[];
  readonly responses: Readonly<Record<string, ResponseObject | Reference>>;
  /** The body a POST takes. */
  readonly requestBody?: RequestBodyObject;
}

export interface RequestBodyObject {
  readonly description: string;
  readonly required: boolean;
  readonly content: Readonly<Record<string, MediaType>>;
}

/** An operation the service performs on someone else's endpoint (a webhook delivery). */
export interface WebhookOperationObject extends Omit<OperationObject, 'responses'> {
  readonly requestBody: RequestBodyObject;
  readonly responses: Readonly<Record<string, ResponseObject>>;
}

export interface WebhookItemObject {
  readonly post: WebhookOperationObject;
}

export interface ServerObject {
  readonly url: string;
  readonly description?: string;
}

export interface PathItemObject {
  readonly summary?: string;
  readonly description?: string;
  readonly servers?: readonly ServerObject[];
  readonly get: OperationObject;
  /** Only where the API writes (review invitations). */
  readonly post?: OperationObject;
  /** Only where browsers send CORS preflights. */
  readonly options?: OperationObject;
}

export interface OpenApiDocument {
  readonly openapi: '3.1.0';
  readonly jsonSchemaDialect: string;
  readonly info: {
    readonly title: string;
    readonly version: string;
    readonly summary?: string;
    readonly description: string;
    readonly contact?: Readonly<Record<string, string>>;
    readonly license?: Readonly<Record<string, string>>;
  };
  readonly servers: readonly ServerObject[];
  readonly security: readonly Readonly<Record<string, readonly string[]>>[];
  readonly tags: readonly { readonly name: string; readonly description: string }[];
  readonly paths: Readonly<Record<string, PathItemObject>>;
  /** The events the service POSTs to subscribed endpoints, by event type. */
  readonly webhooks: Readonly<Record<string, WebhookItemObject>>;
  readonly components: {
    readonly schemas: Readonly<Record<string, JsonSchema>>;
    readonly securitySchemes: Readonly<Record<string, Readonly<Record<string, string>>>>;
  };
}

export function isReference(value: unknown): value is Reference {
  return typeof value === 'object' && value !== null && typeof (value as { $ref?: unknown }).$ref === 'string';
}
