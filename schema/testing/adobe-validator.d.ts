// The package ships JavaScript only; this declares the part the tests use.
declare module '@adobe/structured-data-validator' {
  export interface ValidationIssue {
    issueMessage: string;
    severity: 'ERROR' | 'WARNING';
    path?: unknown[];
    fieldNames?: string[];
    errorType?: string;
    rootType?: string;
    dataFormat?: string;
  }
  /** The shape @marbec/web-auto-extractor produces: items grouped by root @type. */
  export interface ExtractedData {
    jsonld?: Record<string, object[]>;
    microdata?: Record<string, object[]>;
    rdfa?: Record<string, object[]>;
  }
  class Validator {
    constructor(schemaOrgJson?: object);
    debug: boolean;
    /** Rule modules per schema.org type, loaded lazily. */
    registeredHandlers: Record<string, (() => Promise<unknown>)[]>;
    validate(data: ExtractedData): Promise<ValidationIssue[]>;
  }
  export default Validator;
}
