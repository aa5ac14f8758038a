/** Audit records: who did what, when (CONTRACT §6), written next to the change they describe. */
import { newId } from '../store/ids.ts';
import type { AuditAction, AuditRecord, User } from '../store/people-types.ts';
import type { Store } from '../store/types.ts';

/** The operator (admin API, CLI) has no user record. */
export const OPERATOR = { userId: null, email: 'operator' } as const;

export async function audit(
  store: Store,
  orgId: string,
  /** A user; the operator; or someone unnamed (a sign-in from an address). */
  actor: Pick<User, 'id' | 'email'> | { userId: null; email: string },
  action: AuditAction,
  target: { id: string; label: string },
  details: Record<string, string> = {},
): Promise<AuditRecord> {
  const record: AuditRecord = {
    id: newId('aud'),
    orgId,
    at: new Date().toISOString(),
    actor: 'id' in actor ? { userId: actor.id, email: actor.email } : { ...actor },
    action,
    target,
    details,
  };
  await store.people.audit.append(record);
  return record;
}
