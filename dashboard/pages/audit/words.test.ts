/**
 * Every action the server can write to the audit log has words in the
 * dashboard (enumerated from the server's own list, AUDIT_ACTIONS), and the
 * subjects read as words: "Trustpilot source “Main shop” (business unit
 * bu-acme-123)", never "trustpilot bu-acme-123".
 */
import { describe, expect, it } from 'vitest';
import { AUDIT_ACTIONS } from '../../../api/store/people-types.ts';
import { sourceAuditTarget, sourceInWords } from '../../../api/dashboard/audit-words.ts';
import { actionInWords, AUDIT_WORDS, detailInWords, subjectInWords } from './words.ts';

/** An action code as the server writes it: "source.connected", "member.role_changed". */
const CODE = /[a-z]+[._][a-z_.]+/;

describe('the audit log in words', () => {
  it('has words for every action the server can write, and for no action it cannot', () => {
    expect(Object.keys(AUDIT_WORDS).sort()).toEqual([...AUDIT_ACTIONS].sort());
    for (const action of AUDIT_ACTIONS) {
      const words = actionInWords(action);
      expect(words, action).not.toMatch(CODE);
      expect(words, action).toMatch(/^[A-Z][a-z-]+( [A-Za-z-]+)*$/);
    }
  });

  it('says what a source is: its platform, its name and its account as the platform names it', () => {
    expect(sourceInWords({ platform: 'trustpilot', account: 'bu-acme-123', name: 'Main shop' })).toBe('Trustpilot source “Main shop” (business unit bu-acme-123)');
    expect(sourceInWords({ platform: 'TRUSTPILOT', account: 'bu-acme-123', name: 'Trustpilot bu-acme-123' })).toBe('Trustpilot source (business unit bu-acme-123)');
    expect(sourceInWords({ platform: 'google', account: 'accounts/1/locations/2', name: 'Paris' })).toBe('Google source “Paris” (location accounts/1/locations/2)');
    expect(sourceAuditTarget({ id: 'src_1', platform: 'YELP', account: 'acme-sf', name: '' })).toEqual({ id: 'src_1', label: 'Yelp source (business acme-sf)' });
  });

  it('puts every subject in words, records written before the words included', () => {
    for (const action of ['source.connected', 'source.reconnected', 'source.removed'] as const) {
      expect(subjectInWords({ action, target: { id: 'src_1', label: 'trustpilot bu-acme-123' } })).toBe('Trustpilot source (business unit bu-acme-123)');
      expect(subjectInWords({ action, target: { id: 'src_1', label: 'TRUSTPILOT bu-acme-123' } })).toBe('Trustpilot source (business unit bu-acme-123)');
      expect(subjectInWords({ action, target: { id: 'src_1', label: 'Trustpilot source “Main shop” (business unit bu-acme-123)' } })).toBe('Trustpilot source “Main shop” (business unit bu-acme-123)');
    }
    expect(subjectInWords({ action: 'key.created', target: { id: 'key_1', label: 'CI (rpk_ab12…)' } })).toBe('API key “CI” (rpk_ab12…)');
    expect(subjectInWords({ action: 'product.updated', target: { id: 'MUG-1', label: 'Blue mug (large) (MUG-1)' } })).toBe('Product “Blue mug (large)” (MUG-1)');
    expect(subjectInWords({ action: 'product.removed', target: { id: 'MUG-1', label: 'MUG-1' } })).toBe('Product MUG-1');
    expect(subjectInWords({ action: 'widget.changed', target: { id: 'wdg_1', label: 'Home carousel' } })).toBe('Widget “Home carousel”');
    expect(subjectInWords({ action: 'review.hidden', target: { id: 'rev_1', label: 'Jane D. on GOOGLE (2024-03-05)' } })).toMatch(/^Jane D\.’s review on Google \(.*2024\)$/);
  });

  it('says when a key may send review invitations, and nothing for a read-only key', () => {
    expect(detailInWords({ details: { permissions: 'reviews:read, invitations:write' } })).toBe('may send review invitations');
    expect(detailInWords({ details: { permissions: 'reviews:read' } })).toBe('');
    expect(detailInWords({ details: { permissions: 'reviews:read, invitations:write', expiresAt: '2099-01-01T00:00:00.000Z' } })).toMatch(/^expires .+; may send review invitations$/);
  });

  it('says what an invitation upload did, apart from a review or product import', () => {
    expect(detailInWords({ details: { format: 'csv', bytes: '120', created: '3', existing: '1', skipped: '2', rejected: '4', interrupted: 'no' } })).toBe('3 invited, 1 already invited, 2 skipped, 4 rejected');
    expect(detailInWords({ details: { format: 'csv', bytes: '120', created: '3', existing: '0', skipped: '0', rejected: '0', interrupted: 'yes' } })).toBe('3 invited, 0 already invited, 0 skipped, 0 rejected (interrupted)');
    expect(detailInWords({ details: { format: 'csv', imported: '3', updated: '1', rejected: '0', interrupted: 'no' } })).toBe('3 new, 1 updated, 0 rejected');
  });
});
