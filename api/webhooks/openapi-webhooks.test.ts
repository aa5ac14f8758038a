/**
 * The OpenAPI document describes every event under its top-level `webhooks`,
 * and what the payload builder and the signer produce is what it describes.
 * (api/openapi/lint.test.ts lints the whole document, webhooks included.)
 */
import { describe, expect, it } from 'vitest';
import { createSchemaCompiler } from '../openapi/ajv.ts';
import { openApiDocument } from '../openapi/document.ts';
import { ref } from '../openapi/refs.ts';
import { EVENT_TYPES, eventBody, newMessageId, replyFailedEvent, reviewEvent, sourceStateChangedEvent, testEvent } from './events.ts';
import { reviewFixture } from './fixtures.ts';
import { generateSecret } from './secrets.ts';
import { signedHeaders } from './signature.ts';

const doc = openApiDocument({ serverUrl: 'https://reviews.acme.test' });
const compiler = createSchemaCompiler(doc);

describe('OpenAPI webhooks', () => {
  it('has one POST per event type', () => {
    expect(Object.keys(doc.webhooks)).toEqual([...EVENT_TYPES]);
    for (const item of Object.values(doc.webhooks)) {
      expect(item.post.parameters?.map((p) => p.name)).toEqual(['webhook-id', 'webhook-timestamp', 'webhook-signature']);
      expect(Object.keys(item.post.requestBody.content)).toEqual(['application/json']);
    }
  });

  it('describes the bodies the payload builder makes and the headers the signer makes', () => {
    const at = new Date();
    const review = reviewFixture({ platform: 'GOOGLE' });
    const events = [
      reviewEvent('review.created', review, at),
      reviewEvent('review.updated', review, at),
      reviewEvent('review.removed', review, at),
      sourceStateChangedEvent(
        { id: 'src_1', platform: 'trustpilot', account: 'acme', name: 'Acme', state: 'failing', every: '60m', lastSyncAt: null, lastSuccessAt: null, nextSyncAt: null, lastError: 'HTTP 500', heldRemovals: 0, reviewCount: 0 },
        at,
      ),
      replyFailedEvent({ reviewId: 'rev_1', platform: 'GOOGLE', reason: 'Google refused the source\'s authorization (401): reconnect the source, then publish again' }, at),
      testEvent('wh_1', at),
    ];
    expect(events.map((e) => e.type)).toEqual([...EVENT_TYPES]);
    for (const event of events) {
      const body = eventBody(event);
      const post = doc.webhooks[event.type]!.post;
      const validate = compiler.compile(post.requestBody.content['application/json']!.schema);
      expect(validate(JSON.parse(body)), `${event.type}: ${JSON.stringify(validate.errors)}`).toBe(true);
      // Another event's body does not pass for this one.
      const other = events.find((e) => e.type !== event.type)!;
      expect(validate(JSON.parse(eventBody(other)))).toBe(false);
      const headers = signedHeaders(newMessageId(), body, [generateSecret(), generateSecret()], at);
      for (const p of post.parameters ?? []) {
        const check = compiler.compile(p.schema);
        expect(check(headers[p.name as keyof typeof headers]), p.name).toBe(true);
      }
    }
  });

  it('refers to component schemas that exist', () => {
    for (const item of Object.values(doc.webhooks)) {
      const schema = item.post.requestBody.content['application/json']!.schema;
      const name = String(schema.$ref).split('/').pop()!;
      expect(ref(name)).toEqual(schema);
      expect(doc.components.schemas[name]).toBeDefined();
    }
  });
});
