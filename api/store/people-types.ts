/**
 * People of the dashboard (CONTRACT §6): accounts (one per email, one
 * password) with a membership, and a role, in each organization they belong
 * to; their sessions (each in one current organization), invitations, and the
 * audit log. Both stores
 * implement `PeopleStore` (embedded/people.ts, mongo/people.ts); the contract
 * suite (people-contract.test.ts) runs against each.
 *
 * Secrets are never stored as given: a session or invitation is kept under
 * the SHA-256 of its token (`id`), so reading the store never yields a token
 * that works.
 */

export const ROLES = ['owner', 'admin', 'member'] as const;
export type Role = (typeof ROLES)[number];

/** A person: one per email across the service, with their memberships. */
export interface Account {
  id: string;
  /** As entered (trimmed); uniqueness is on `emailKey`. */
  email: string;
  /** Lower-case email: unique across the whole service (one person, one account). */
  emailKey: string;
  /** `scrypt$N$r$p$salt$hash` (api/dashboard/password.ts). */
  passwordHash: string;
  createdAt: string;
  lastSignInAt: string | null;
  /** Oldest first; never empty (an account whose last membership is removed is deleted). */
  memberships: Membership[];
}

export interface Membership {
  orgId: string;
  role: Role;
  /** When the person joined this organization. */
  createdAt: string;
}

/**
 * An account seen from one organization: the account's fields with its
 * membership there (`orgId`, `role`, and `createdAt`: when they joined it).
 */
export interface User {
  id: string;
  orgId: string;
  email: string;
  emailKey: string;
  passwordHash: string;
  role: Role;
  createdAt: string;
  lastSignInAt: string | null;
}

/** The account as a member of `orgId`, or null when it is not one. */
export function memberOf(account: Account | null, orgId: string): User | null {
  const membership = account?.memberships.find((m) => m.orgId === orgId);
  if (!account || !membership) return null;
  return { id: account.id, orgId, email: account.email, emailKey: account.emailKey, passwordHash: account.passwordHash, role: membership.role, createdAt: membership.createdAt, lastSignInAt: account.lastSignInAt };
}

export interface Session {
  /** Hex SHA-256 of the cookie's random value. */
  id: string;
  userId: string;
  /** The current organization: every request is scoped to it, and the membership is checked on each. */
  orgId: string;
  /** Sent back in X-CSRF-Token on every state-changing request. */
  csrfToken: string;
  createdAt: string;
  lastSeenAt: string;
  /** createdAt + 7 days: the absolute end, whatever the activity. */
  expiresAt: string;
}

export interface Invitation {
  /** Hex SHA-256 of the link's token. */
  id: string;
  orgId: string;
  email: string;
  emailKey: string;
  role: Role;
  invitedBy: string;
  createdAt: string;
  expiresAt: string;
  acceptedAt: string | null;
  /**
   * When it was revoked, or voided by its sender's demotion or removal: for
   * good, whatever happens to the sender afterwards. Accepted and voided
   * exclude each other (the store decides, even when they race).
   */
  voidedAt: string | null;
}

export const AUDIT_ACTIONS = [
  'key.created',
  'key.revoked',
  'member.invited',
  'member.joined',
  'member.removed',
  'member.role_changed',
  'member.created',
  'member.invitation_revoked',
  'org.plan_changed',
  'org.language_changed',
  'product.created',
  'product.updated',
  'product.removed',
  'product.imported',
  'invitation.imported',
  'collect.link_rotated',
  'collect.settings_changed',
  'invitation.cancelled',
  'invitation.erased',
  'invitations.settings_changed',
  'review.published',
  'review.rejected',
  'review.hidden',
  'review.shown',
  'reply.published',
  'reply.failed',
  'reply.deleted',
  'reply.template_created',
  'reply.template_changed',
  'reply.template_removed',
  'reply.auto_rule_changed',
  'reply.auto_scheduled',
  'reply.auto_withdrawn',
  'source.connected',
  'source.reconnected',
  'source.removed',
  'reviews.imported',
  'reviews.removed',
  'reviews.removal_held',
  'reviews.removal_kept',
  'security.signed_in',
  'security.locked_out',
  'webhook.created',
  'webhook.disabled',
  'webhook.enabled',
  'webhook.removed',
  'webhook.replayed',
  'webhook.secret_rotated',
  'webhook.tested',
  'widget.changed',
  'widget.created',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export interface AuditRecord {
  id: string;
  orgId: string;
  at: string;
  /** Who: a user id and the email at the time, or the operator (admin API/CLI). */
  actor: { userId: string | null; email: string };
  action: AuditAction;
  /** What: the key, member or widget concerned, with a readable label. */
  target: { id: string; label: string };
  /** Extra facts (a role change's from/to). */
  details: Record<string, string>;
}

export class DuplicateEmailError extends Error {
  override name = 'DuplicateEmailError';
  constructor(email: string) {
    super(`A user with the email ${email} already exists.`);
  }
}

/**
 * A role change or removal that would leave an organization with no Owner.
 * The stores check it in the same atomic step as the change (two Owners
 * demoting each other at once: one wins, the other gets this).
 */
export class LastOwnerError extends Error {
  override name = 'LastOwnerError';
  constructor() {
    super('An organization keeps at least one Owner.');
  }
}

/**
 * A role change or removal made on a role read earlier (`expected`) that has
 * changed since: the check that allowed it (an Admin may not touch an Owner)
 * was made on what is no longer true, so nothing is changed.
 */
export class RoleChangedError extends Error {
  override name = 'RoleChangedError';
  constructor() {
    super("This member's role changed meanwhile.");
  }
}

/** The person is a member of that organization already. */
export class MembershipExistsError extends Error {
  override name = 'MembershipExistsError';
  constructor() {
    super('This person is already a member of the organization.');
  }
}

export interface UserStore {
  /** A new account with its first membership (`user.orgId`, `user.role`). Throws DuplicateEmailError when emailKey is taken. */
  create(user: User): Promise<void>;
  /**
   * Adds a membership to an existing account; the account seen from `orgId`,
   * or null when there is no such account. Throws MembershipExistsError when
   * it is a member there already.
   */
  addMembership(id: string, membership: Membership): Promise<User | null>;
  /** The account with all its memberships. */
  get(id: string): Promise<Account | null>;
  /** The account seen from one organization: null when there is no such account or it is not a member there. */
  member(id: string, orgId: string): Promise<User | null>;
  findByEmail(email: string): Promise<Account | null>;
  /** Members of the organization, by when they joined, oldest first. */
  listByOrg(orgId: string): Promise<User[]>;
  /** The account's own fields; null when there is no such account. */
  updateAccount(id: string, patch: Partial<Pick<Account, 'passwordHash' | 'lastSignInAt'>>): Promise<Account | null>;
  /**
   * Changes the role in one organization; null when the account is not a
   * member there. Throws LastOwnerError, changing nothing, when it would
   * demote the organization's last Owner, and RoleChangedError when
   * `expected` is given and is not the role held now (both checked in the
   * same atomic step as the change).
   */
  setRole(id: string, orgId: string, role: Role, expected?: Role): Promise<User | null>;
  /**
   * Removes the membership in one organization; the account's other
   * memberships stay. An account left with none is deleted, its sessions
   * with it. False when it was not a member. Throws LastOwnerError, removing
   * nothing, when it is the organization's last Owner, and RoleChangedError
   * when `expected` is given and is not the role held now.
   */
  removeMembership(id: string, orgId: string, expected?: Role): Promise<boolean>;
}

export interface SessionStore {
  /**
   * Throws (a 503) when a session could not be stored right now. Sign-in asks
   * first, so that an outage never tells a right password from a wrong one.
   * Absent: sessions live in the store, whose own outage is a 503 anyway.
   */
  assertWritable?(): Promise<void>;
  create(session: Session): Promise<void>;
  get(id: string): Promise<Session | null>;
  touch(id: string, at: Date): Promise<void>;
  remove(id: string): Promise<void>;
  removeByUser(userId: string): Promise<void>;
  /** Ends the user's sessions in one organization (their membership there was removed); the others stay. */
  removeByUserInOrg(userId: string, orgId: string): Promise<void>;
}

export interface InvitationStore {
  create(invitation: Invitation): Promise<void>;
  get(id: string): Promise<Invitation | null>;
  /** Open invitations and accepted ones, newest first. */
  listByOrg(orgId: string): Promise<Invitation[]>;
  /** Marks it accepted, once: null when it was already accepted, is void, or does not exist. */
  consume(id: string, at: Date): Promise<Invitation | null>;
  /**
   * Marks it void, once: null when it was already accepted, is void, or does
   * not exist. Of a `consume` and a `void` racing, exactly one succeeds.
   */
  void(id: string, at: Date): Promise<Invitation | null>;
  /**
   * Undoes this caller's `consume(id, at)` whose acceptance could not be
   * completed (the email got an account meanwhile): the invitation is open
   * again, to be accepted on a retry. Only an acceptance made at `at` is
   * undone; a voided one stays void. True when it was reopened.
   */
  reopen(id: string, at: Date): Promise<boolean>;
}

export interface AuditStore {
  append(record: AuditRecord): Promise<void>;
  /** Newest first, at most `limit`. */
  listByOrg(orgId: string, limit: number): Promise<AuditRecord[]>;
}

export interface PeopleStore {
  readonly users: UserStore;
  readonly sessions: SessionStore;
  readonly invitations: InvitationStore;
  readonly audit: AuditStore;
}

export const normalizeEmail = (email: string): string => email.trim().toLowerCase();
