/**
 * The document passes a maintained OpenAPI linter (Redocly CLI, `recommended`
 * rules, configured in /redocly.yaml) with no error and no warning, every
 * schema in it compiles under Ajv's strict mode, and every example in it is
 * valid against its own schema.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSchemaCompiler } from './ajv.ts';
import { openApiDocument } from './document.ts';
import { isReference, type JsonSchema } from './types.ts';

const root = resolve(import.meta.dirname, '../..');
// A production-like origin: the linter rightly flags localhost servers, the default for local runs.
const doc = openApiDocument({ serverUrl: 'https://reviews.acme.test' });

interface LintReport {
  totals: { errors: number; warnings: number };
  problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[];
}

describe('OpenAPI lint', () => {
  it('passes redocly lint with the recommended rules and no warnings', () => {
    const dir = mkdtempSync(join(tmpdir(), 'openapi-lint-'));
    try {
      const file = join(dir, 'openapi.json');
      writeFileSync(file, JSON.stringify(doc, null, 2));
      const run = spawnSync(
        process.execPath,
        [join(root, 'node_modules/@redocly/cli/bin/cli.js'), 'lint', file, '--config', join(root, 'redocly.yaml'), '--format', 'json'],
        {
          cwd: root,
          encoding: 'utf8',
          timeout: 60_000,
          env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', DO_NOT_TRACK: '1' },
        },
      );
      expect(run.error).toBeUndefined();
      const report = JSON.parse(run.stdout) as LintReport;
      const problems = report.problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? '?'}`);
      expect(problems).toEqual([]);
      expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
      expect(run.status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('fails redocly lint on a broken document (the linter really runs)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'openapi-lint-'));
    try {
      const file = join(dir, 'openapi.json');
      const broken = { ...doc, paths: { ...doc.paths, '/broken': { get: { responses: { '200': { $ref: '#/components/responses/Nope' } } } } } };
      writeFileSync(file, JSON.stringify(broken));
      const run = spawnSync(process.execPath, [join(root, 'node_modules/@redocly/cli/bin/cli.js'), 'lint', file, '--config', join(root, 'redocly.yaml'), '--format', 'json'], {
        cwd: root,
        encoding: 'utf8',
        timeout: 60_000,
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', DO_NOT_TRACK: '1' },
      });
      const report = JSON.parse(run.stdout) as LintReport;
      expect(report.totals.errors).toBeGreaterThan(0);
      expect(run.status).not.toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** Every (schema, examples) pair the document holds, with where it is. */
function schemasIn(): { where: string; schema: JsonSchema; examples: unknown[] }[] {
  const found: { where: string; schema: JsonSchema; examples: unknown[] }[] = [];
  for (const [name, schema] of Object.entries(doc.components.schemas)) {
    found.push({ where: `components.schemas.${name}`, schema, examples: [...(schema.examples ?? [])] });
  }
  const operations = Object.values(doc.paths).flatMap((item) => [item.get, ...(item.options ? [item.options] : []), ...(item.post ? [item.post] : [])]);
  for (const op of operations) {
    const at = op.operationId;
    for (const p of op.parameters ?? []) {
      found.push({ where: `${at} parameter ${p.name}`, schema: p.schema, examples: p.example === undefined ? [] : [p.example] });
    }
    for (const [type, media] of Object.entries(op.requestBody?.content ?? {})) {
      found.push({ where: `${at} request ${type}`, schema: media.schema, examples: Object.values(media.examples ?? {}).map((e) => e.value) });
    }
    for (const [status, response] of Object.entries(op.responses)) {
      if (isReference(response)) throw new Error(`${at} ${status} is a $ref`);
      for (const [name, header] of Object.entries(response.headers ?? {})) {
        if (isReference(header)) throw new Error(`${at} ${status} header ${name} is a $ref`);
        found.push({ where: `${at} ${status} header ${name}`, schema: header.schema, examples: header.example === undefined ? [] : [header.example] });
      }
      for (const [type, media] of Object.entries(response.content ?? {})) {
        found.push({ where: `${at} ${status} ${type}`, schema: media.schema, examples: Object.values(media.examples ?? {}).map((e) => e.value) });
      }
    }
  }
  for (const [event, item] of Object.entries(doc.webhooks)) {
    const at = `webhook ${event}`;
    for (const p of item.post.parameters ?? []) {
      found.push({ where: `${at} header ${p.name}`, schema: p.schema, examples: p.example === undefined ? [] : [p.example] });
    }
    for (const [type, media] of Object.entries(item.post.requestBody.content)) {
      found.push({ where: `${at} ${type}`, schema: media.schema, examples: Object.values(media.examples ?? {}).map((e) => e.value) });
    }
  }
  return found;
}

describe('OpenAPI schemas', () => {
  const compiler = createSchemaCompiler(doc);
  const all = schemasIn();

  it('finds every kind of schema in the document', () => {
    expect(all.length).toBeGreaterThan(100);
    expect(all.filter((s) => s.examples.length > 0).length).toBeGreaterThan(40);
  });

  it('compiles every schema under Ajv strict mode, $refs resolved', () => {
    const failures: string[] = [];
    for (const { where, schema } of all) {
      try {
        compiler.compile(schema);
      } catch (err) {
        failures.push(`${where}: ${(err as Error).message}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('holds only examples that are valid against their own schema', () => {
    const failures: string[] = [];
    for (const { where, schema, examples } of all) {
      const validate = compiler.compile(schema);
      for (const example of examples) if (!validate(example)) failures.push(`${where}: ${JSON.stringify(validate.errors)}`);
    }
    expect(failures).toEqual([]);
  });

  it('documents every error status with an example of each error code', () => {
    const codes = new Set<string>();
    for (const item of Object.values(doc.paths)) {
      for (const response of [...Object.values(item.get.responses), ...Object.values(item.post?.responses ?? {})]) {
        if (isReference(response)) continue;
        for (const media of Object.values(response.content ?? {})) {
          for (const example of Object.values(media.examples ?? {})) {
            const error = (example.value as { error?: unknown }).error;
            if (typeof error === 'string') codes.add(error);
          }
        }
      }
    }
    expect([...codes].sort()).toEqual(
      [
        'api_key_in_query',
        'forbidden',
        'https_required',
        'internal_error',
        'invalid_parameter',
        'invitation_limit_reached',
        'method_not_allowed',
        'not_found',
        'payload_too_large',
        'product_not_found',
        'rate_limit_exceeded',
        'service_unavailable',
        'unauthorized',
      ].sort(),
    );
  });

  it('gives every error response of every operation an example', () => {
    const missing: string[] = [];
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const op of [item.get, item.options, item.post]) {
        for (const [status, response] of Object.entries(op?.responses ?? {})) {
          if (isReference(response) || Number(status) < 400) continue;
          const examples = Object.keys(response.content?.['application/json']?.examples ?? {});
          if (examples.length === 0) missing.push(`${op?.operationId ?? path} ${status}`);
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it('puts the versioned API under /api/v1 of PUBLIC_URL and the rest at the origin', () => {
    const local = openApiDocument({ serverUrl: 'https://localhost:9443/' });
    expect(local.servers[0]?.url).toBe('https://localhost:9443/api/v1');
    expect(local.paths['/healthz']?.servers?.[0]?.url).toBe('https://localhost:9443');
    // The API base itself is accepted too.
    expect(openApiDocument({ serverUrl: 'https://localhost:9443/api/v1' }).servers[0]?.url).toBe('https://localhost:9443/api/v1');
    expect(Object.keys(local.paths).sort()).toEqual(
      ['/docs', '/healthz', '/invitations', '/openapi.json', '/public/v1/widgets/{id}', '/public/v1/widgets/{id}/html', '/readyz', '/reviews', '/reviews/stats', '/widgets/{id}/embed', '/widgets/{id}/schema'].sort(),
    );
    expect(local.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
  });
});
