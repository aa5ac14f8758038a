/**
 * The OpenAPI 3.1 document of the dashboard's JSON endpoints (`/dashboard/api`),
 * a sibling of the public document: request bodies are validated from it
 * (validate.ts) and the tests check every response they receive against it.
 * Served at GET /dashboard/api/openapi.json.
 */
import { ROLES, AUDIT_ACTIONS } from '../store/people-types.ts';
import { HIDE_REASONS, JSON_LD_SOURCES, PLANS, SOURCE_STATES, REVIEW_LANGUAGES, SUBJECT_TYPES, WIDGET_LAYOUTS } from '../store/types.ts';
import { COMPONENT_SCHEMAS } from '../openapi/schemas.ts';
import { PERMISSIONS } from '../auth/permissions.ts';
import { EVENT_TYPES, SUBSCRIBABLE_EVENT_TYPES } from '../webhooks/event-types.ts';
import { HOLD_REASONS, MAX_INVITATION_DELAY_DAYS, MODERATION_MODES, REJECT_REASONS } from '../store/collect-types.ts';
import { INVITATION_STATES, SKIP_REASONS } from '../store/invitation-types.ts';
import { PAGE_LANGUAGES } from '../collect/words.ts';

type Schema = Record<string, unknown>;

const str = (extra: Schema = {}): Schema => ({ type: 'string', ...extra });
const dateTime = str({ format: 'date-time' });
const nullable = (schema: Schema): Schema => ({ anyOf: [schema, { type: 'null' }] });
const object = (properties: Record<string, Schema>, required = Object.keys(properties)): Schema => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});
const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const list = (item: string): Schema => object({ data: { type: 'array', items: ref(item) } });

const role = str({ enum: [...ROLES] });
/** What an API key may do (api/auth/permissions.ts). */
const PERMISSION_LIST: Schema = { type: 'array', items: str({ enum: [...PERMISSIONS] }), minItems: 1 };
const email = str({ format: 'email', maxLength: 254 });

const schemas: Record<string, Schema> = {
  Error: object({
    error: str(),
    message: str(),
    details: { type: 'array', items: { type: 'object', properties: { parameter: str(), component: str(), message: str() }, required: ['message'] } },
  }),
  SessionUser: object({ id: str(), email: str(), role }),
  SessionOrg: object({
    id: str(),
    name: str(),
    plan: str({ enum: [...PLANS] }),
    apiAccess: { type: 'boolean' },
    requestsPerMinute: nullable({ type: 'integer' }),
  }),
  SessionMembership: object({ id: str(), name: str(), role }),
  Session: object({
    user: nullable(ref('SessionUser')),
    org: nullable(ref('SessionOrg')),
    organizations: { type: 'array', items: ref('SessionMembership'), description: "Every organization the signed-in person belongs to, with their role there (empty when signed out); `org` is the session's current one" },
    csrfToken: str({ minLength: 20 }),
  }),
  OrganizationSwitch: object({ orgId: str({ minLength: 1, maxLength: 64 }) }),
  SignIn: object({ email: str({ minLength: 1, maxLength: 254 }), password: str({ minLength: 1, maxLength: 256 }) }),
  KeyCreate: object({ name: str({ minLength: 1, maxLength: 100, pattern: '\\S' }), expiresAt: nullable(str({ maxLength: 64 })), mayInvite: { type: 'boolean', description: 'May send review invitations (the permission invitations:write); absent or false: read-only' } }, ['name']),
  CreatedKey: object({ id: str(), key: str(), prefix: str(), name: str(), createdAt: dateTime, expiresAt: nullable(dateTime), permissions: PERMISSION_LIST }),
  Key: object({
    id: str(),
    name: str(),
    prefix: str(),
    createdAt: dateTime,
    lastUsedAt: nullable(dateTime),
    expiresAt: nullable(dateTime),
    state: str({ enum: ['active', 'revoked', 'expired'] }),
    permissions: PERMISSION_LIST,
  }),
  KeyList: list('Key'),
  RevokedKey: object({ id: str(), state: { const: 'revoked' } }),
  Member: object({ id: str(), email: str(), role, createdAt: dateTime, lastSignInAt: nullable(dateTime) }),
  PendingInvitation: object({ id: str({ description: 'Names the invitation for revoking it; not the link\'s token and no use for accepting it' }), email: str(), role, createdAt: dateTime, expiresAt: dateTime }),
  MemberList: object({ data: { type: 'array', items: ref('Member') }, invitations: { type: 'array', items: ref('PendingInvitation') } }),
  Invite: object({ email, role }),
  InvitationCreated: object(
    {
      email: str(),
      role,
      expiresAt: dateTime,
      mailed: { type: 'boolean', description: 'true: the link was mailed to the invitee (SMTP_URL is set) and is not in this answer' },
      link: str({ format: 'uri', description: 'Only when not mailed: the link to pass on' }),
    },
    ['email', 'role', 'expiresAt', 'mailed'],
  ),
  RoleChange: object({ role }),
  InvitationToken: object({ token: str({ minLength: 20, maxLength: 100 }) }),
  InvitationInfo: object({ email: str(), role, organization: str(), expiresAt: dateTime }),
  InvitationAccept: object({ token: str({ minLength: 20, maxLength: 100 }), password: str({ minLength: 12, maxLength: 256 }) }),
  AuditRecord: object({
    id: str(),
    at: dateTime,
    actor: object({ userId: nullable(str()), email: str() }),
    action: str({ enum: [...AUDIT_ACTIONS] }),
    target: object({ id: str(), label: str() }),
    details: { type: 'object', additionalProperties: str() },
  }),
  AuditList: list('AuditRecord'),
  // The review page (CONTRACT §13): the Collect page and the Pending view.
  Collect: object({
    collectId: str(),
    url: str({ format: 'uri' }),
    products: { type: 'array', items: object({ id: str(), name: str(), url: str({ format: 'uri' }) }) },
    shareUrl: nullable(str({ format: 'uri' })),
    moderation: str({ enum: [...MODERATION_MODES] }),
    mail: { type: 'boolean', description: 'Confirmation mails are sent (SMTP_URL); false: every review from the page waits for a person' },
    rejectedByRating: { type: 'array', description: 'Reviews rejected in the last 90 days (by the day of the decision), by rating 1 to 5', items: object({ rating: { type: 'integer', minimum: 1, maximum: 5 }, count: { type: 'integer' } }) },
  }),
  CollectLink: object({ collectId: str(), url: str({ format: 'uri' }) }),
  ReviewInvitation: object({
    id: str(),
    email: str({ description: "The invitee's address: shown on the dashboard only" }),
    name: nullable(str()),
    productId: nullable(str()),
    orderRef: nullable(str()),
    locale: nullable(str()),
    state: str({ enum: [...INVITATION_STATES] }),
    reason: nullable(str({ enum: [...SKIP_REASONS] })),
    lastError: nullable(str()),
    createdAt: dateTime,
    sendAt: nullable(dateTime),
    sentAt: nullable(dateTime),
    remindedAt: nullable(dateTime),
    reviewedAt: nullable(dateTime),
    link: nullable(str({ format: 'uri', description: 'The review link (null for a skipped invitation); for an unsent one, the link to pass to your own mailer' })),
  }),
  ConversionFigure: object({
    since: str({ format: 'date', description: 'The window\'s first day (UTC); the window runs through today' }),
    sent: { type: 'integer', minimum: 0, description: 'Invitations sent in the window: the relay accepted the mail that day, or (no relay) the unsent link was created that day' },
    reviewed: { type: 'integer', minimum: 0, description: 'Of those, the ones reviewed now' },
    rate: nullable({ type: 'number', minimum: 0, maximum: 1, description: 'reviewed ÷ sent; null when none was sent' }),
  }),
  ReviewInvitationPage: object({
    data: { type: 'array', items: ref('ReviewInvitation') },
    total: { type: 'integer', description: 'Invitations matching the state asked (all without one)' },
    limit: { type: 'integer' },
    offset: { type: 'integer' },
    counts: object(Object.fromEntries(INVITATION_STATES.map((s) => [s, { type: 'integer', minimum: 0 }]))),
    conversion: object({ days30: ref('ConversionFigure'), days90: ref('ConversionFigure') }),
    mail: object({ configured: { type: 'boolean', description: 'SMTP_URL is set: invitations are mailed; false: they are unsent links for your own mailer' } }),
  }),
  ReviewInvitationCancelled: object({ id: str(), state: str({ enum: ['cancelled'] }) }),
  InvitationSettings: object({
    delayDays: { type: 'integer', minimum: 0, maximum: MAX_INVITATION_DELAY_DAYS, description: 'Days from creation to the mail when an invitation gives no sendAt (0: at once)' },
    reminder: { type: 'boolean', description: 'One reminder 7 days after the mail when no review came' },
    language: nullable(str({ enum: [...PAGE_LANGUAGES], description: "The mail's language when the invitation has none; null: the organization's" })),
    senderName: nullable(str({ maxLength: 100, description: "The sender's display name, one line; null: the organization's name" })),
  }),
  InvitationPreview: object({
    language: str({ enum: [...PAGE_LANGUAGES] }),
    kind: str({ enum: ['invitation', 'reminder'] }),
    subject: str(),
    from: str({ description: 'The From header: the sender name (or the organization\'s) and SMTP_FROM\'s address' }),
    html: str(),
    text: str(),
    product: nullable(object({ id: str(), name: str() })),
    mail: object({ configured: { type: 'boolean' } }),
  }),
  CollectSettings: object({ shareUrl: nullable(str({ format: 'uri' })), moderation: str({ enum: [...MODERATION_MODES] }) }),
  CollectSettingsPatch: object({ shareUrl: nullable(str({ format: 'uri', maxLength: 2000 })), moderation: str({ enum: [...MODERATION_MODES] }) }, []),
  PendingReview: object({
    id: str(),
    rating: { type: 'integer', minimum: 1, maximum: 5 },
    content: str(),
    authorName: str(),
    productId: nullable(str()),
    submittedAt: dateTime,
    reason: nullable(str({ enum: [...HOLD_REASONS] })),
  }),
  PendingReviewList: list('PendingReview'),
  PendingPublished: object({ id: str(), status: { const: 'published' } }),
  PendingReject: object({ reason: str({ enum: [...REJECT_REASONS] }) }),
  PendingRejected: object({ id: str(), status: { const: 'rejected' }, reason: str({ enum: [...REJECT_REASONS] }) }),
  Overview: object({
    totalReviews: { type: 'integer' },
    averageRating: nullable({ type: 'number' }),
    last30Days: { type: 'integer' },
    last7Days: { type: 'integer' },
    widgets: { type: 'integer' },
    members: { type: 'integer' },
    ratingDistribution: { type: 'array', items: object({ rating: nullable({ type: 'integer', minimum: 1, maximum: 5 }), count: { type: 'integer' } }) },
    platforms: { type: 'array', items: object({ platform: str(), count: { type: 'integer' }, averageRating: nullable({ type: 'number' }) }) },
    /** The last 12 calendar months in UTC, oldest first; the current (partial) month last. */
    months: {
      type: 'array',
      minItems: 12,
      maxItems: 12,
      items: object({
        month: str({ pattern: '^\\d{4}-\\d{2}$' }),
        count: { type: 'integer' },
        averageRating: nullable({ type: 'number' }),
        platforms: { type: 'array', items: object({ platform: str(), count: { type: 'integer' } }) },
      }),
    },
    /** Reply rate and median time to reply over the last 90 days, per platform that shows replies (Google, Trustpilot, DIRECT) with reviews in the window. */
    replies: object({
      days: { type: 'integer', const: 90 },
      platforms: {
        type: 'array',
        items: object({
          platform: str({ enum: ['GOOGLE', 'TRUSTPILOT', 'DIRECT'] }),
          received: { type: 'integer', minimum: 1 },
          replied: { type: 'integer', minimum: 0 },
          medianReplyMs: nullable({ type: 'integer', minimum: 0 }),
        }),
      },
      medianReplyMs: nullable({ type: 'integer', minimum: 0 }),
    }),
  }),
  WidgetItem: object({ id: str(), name: str(), layout: str(), subject: str(), createdAt: dateTime, updatedAt: dateTime }),
  WidgetList: object({
    data: { type: 'array', items: ref('WidgetItem') },
    platforms: { type: 'array', items: object({ platform: str(), count: { type: 'integer' } }) },
    products: { type: 'array', items: object({ id: str(), name: str() }) },
    sources: {
      type: 'array',
      description: "The organization's sources, for the builder's source choice (a chain's locations, each by its name)",
      items: object({ id: str(), name: str(), platform: str({ enum: ['GOOGLE', 'TRUSTPILOT', 'YELP', 'FACEBOOK', 'G2'] }) }),
    },
  }),
  ReviewItem: object({
    id: str(),
    platform: str(),
    authorName: str(),
    rating: nullable({ type: 'integer' }),
    date: dateTime,
    content: str(),
    language: str(),
    url: nullable(str()),
    hidden: nullable(ref('Moderation')),
    reply: nullable(object({ text: str(), date: dateTime })),
  }),
  Moderation: object({ reason: str({ enum: [...HIDE_REASONS] }), hiddenAt: dateTime, hiddenBy: str() }),
  ReviewHide: object({ reason: str({ enum: [...HIDE_REASONS] }) }),
  ImportSummary: object({
    imported: { type: 'integer', minimum: 0 },
    updated: { type: 'integer', minimum: 0 },
    rejected: { type: 'array', maxItems: 1000, items: object({ line: { type: 'integer', minimum: 1 }, reason: str() }) },
    rejectedTotal: { type: 'integer', minimum: 0 },
    fileError: nullable(object({ line: { type: 'integer', minimum: 1 }, reason: str() })),
    datesWithoutOffset: { type: 'integer', minimum: 0 },
  }),
  ProductImportSummary: object({
    imported: { type: 'integer', minimum: 0 },
    updated: { type: 'integer', minimum: 0 },
    rejected: { type: 'array', maxItems: 1000, items: object({ line: { type: 'integer', minimum: 1 }, reason: str() }) },
    rejectedTotal: { type: 'integer', minimum: 0 },
  }),
  InvitationImportSummary: object({
    created: { type: 'integer', minimum: 0, description: 'Invitations created (scheduled, or unsent links without SMTP_URL)' },
    existing: { type: 'integer', minimum: 0, description: 'Lines whose orderRef and email were invited before: that invitation stands, nothing new' },
    skipped: { type: 'array', maxItems: 1000, items: object({ line: { type: 'integer', minimum: 1 }, reason: str({ enum: ['recently_invited', 'unsubscribed'] }) }) },
    rejected: { type: 'array', maxItems: 1000, items: object({ line: { type: 'integer', minimum: 1 }, reason: str() }) },
    skippedTotal: { type: 'integer', minimum: 0 },
    rejectedTotal: { type: 'integer', minimum: 0 },
    fileError: nullable(object({ line: { type: 'integer', minimum: 1 }, reason: str() })),
  }),
  InvitationImportStatus: object({
    run: nullable(
      object({
        state: str({ enum: ['running', 'finished', 'interrupted', 'failed'] }),
        startedAt: dateTime,
        endedAt: nullable(dateTime),
        imported: { type: 'integer', minimum: 0, description: 'Invitations created so far' },
        updated: { type: 'integer', minimum: 0, description: 'Lines whose orderRef and email were invited before' },
        skippedTotal: { type: 'integer', minimum: 0 },
        rejectedTotal: { type: 'integer', minimum: 0 },
      }),
    ),
    maxImportBytes: { type: 'integer' },
  }),
  ProductInput: object(
    {
      id: str({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9._-]{1,100}$' }),
      name: str({ minLength: 1, maxLength: 200 }),
      url: nullable(str({ maxLength: 2048 })),
      imageUrl: nullable(str({ maxLength: 2048 })),
      gtin: nullable(str({ pattern: '^\\d{8}$|^\\d{12,14}$' })),
      brand: nullable(str({ maxLength: 200 })),
    },
    ['id', 'name'],
  ),
  ProductChange: object(
    {
      id: str({ description: 'the path\'s id, if given' }),
      name: str({ minLength: 1, maxLength: 200 }),
      url: nullable(str({ maxLength: 2048 })),
      imageUrl: nullable(str({ maxLength: 2048 })),
      gtin: nullable(str({ pattern: '^\\d{8}$|^\\d{12,14}$' })),
      brand: nullable(str({ maxLength: 200 })),
    },
    ['name'],
  ),
  Product: object({
    id: str(),
    name: str(),
    url: nullable(str()),
    imageUrl: nullable(str()),
    gtin: nullable(str()),
    brand: nullable(str()),
    createdAt: dateTime,
  }),
  ProductItem: object({
    id: str(),
    name: str(),
    url: nullable(str()),
    imageUrl: nullable(str()),
    gtin: nullable(str()),
    brand: nullable(str()),
    createdAt: dateTime,
    reviewCount: { type: 'integer', minimum: 0 },
    averageRating: nullable({ type: 'number', minimum: 1, maximum: 5 }),
  }),
  ProductList: object({
    data: { type: 'array', items: ref('ProductItem') },
    total: { type: 'integer', minimum: 0 },
    offset: { type: 'integer', minimum: 0 },
    limit: { type: 'integer', minimum: 0 },
    maxImportBytes: { type: 'integer' },
  }),
  ProductRemoved: object({ id: str(), removed: { const: true } }),
  ImportStatus: object({
    run: nullable(
      object({
        state: str({ enum: ['running', 'finished', 'interrupted', 'failed'] }),
        startedAt: dateTime,
        endedAt: nullable(dateTime),
        imported: { type: 'integer', minimum: 0 },
        updated: { type: 'integer', minimum: 0 },
        rejectedTotal: { type: 'integer', minimum: 0 },
      }),
    ),
  }),
  Document: { type: 'object', properties: { openapi: { const: '3.1.0' }, info: { type: 'object' }, paths: { type: 'object' }, components: { type: 'object' } }, required: ['openapi', 'info', 'paths', 'components'] },
  ReviewList: object({
    data: { type: 'array', items: ref('ReviewItem') },
    pagination: object({ total: { type: 'integer' }, limit: { type: 'integer' }, offset: { type: 'integer' }, hasMore: { type: 'boolean' } }),
    hiddenTotal: { type: 'integer', minimum: 0 },
    maxImportBytes: { type: 'integer' },
  }),
  // Widgets (builder). The request bodies are checked by the admin API's own parser
  // (api/admin/widgets.ts): these schemas document them and check the answers.
  ...widgetSchemas(),
};

function widgetSchemas(): Record<string, Schema> {
  const subject = {
    type: str({ enum: [...SUBJECT_TYPES] }),
    name: str({ minLength: 1, maxLength: 200 }),
    url: nullable(str({ format: 'uri', maxLength: 2000 })),
    image: nullable(str({ format: 'uri', maxLength: 2000 })),
    brand: nullable(str({ maxLength: 200 })),
  };
  const options = {
    theme: str({ enum: ['light', 'dark', 'auto'] }),
    accentColor: str({ pattern: '^#[0-9a-fA-F]{6}$' }),
    maxReviews: { type: 'integer', minimum: 1, maximum: 50 },
    minRating: nullable({ type: 'integer', minimum: 1, maximum: 5 }),
    platforms: nullable({ type: 'array', minItems: 1, maxItems: 20, items: str({ pattern: '^[A-Za-z][A-Za-z0-9_]{0,31}$' }) }),
    hideEmpty: { type: 'boolean' },
    showDates: { type: 'boolean' },
    locale: nullable(str({ maxLength: 35 })),
    jsonLd: str({ enum: ['auto', 'on', 'off'] }),
    reviewLanguages: str({ enum: [...REVIEW_LANGUAGES] }),
    showReplies: { type: 'boolean' },
    productId: nullable(str({ pattern: '^[A-Za-z0-9._-]{1,100}$', description: 'A product widget: the catalog id of its one product' })),
    productFrom: nullable(str({ enum: ['page'], description: "The product of the page: the snippet container's data-product-id" })),
    jsonLdSources: str({ enum: [...JSON_LD_SOURCES], description: 'direct (default): the JSON-LD counts only reviews collected by the organization itself; all: every platform shown' }),
    sourceIds: nullable({
      type: 'array',
      minItems: 1,
      maxItems: 50,
      items: str({ pattern: '^src_[0-9A-Za-z]{1,40}$' }),
      description: "Only the reviews these sources of the organization collected (a chain's location: its own Google source); null or absent: every review. Ignored by a product widget",
    }),
  };
  const layout = str({ enum: [...WIDGET_LAYOUTS] });
  const { PublicWidgetData, PublicReview, Platform, JsonLd } = COMPONENT_SCHEMAS as unknown as Record<string, Schema>;
  return {
    WidgetInput: object({ name: str({ minLength: 1, maxLength: 200 }), layout, subject: object(subject, []), options: object(options, []) }, ['name']),
    WidgetPreviewInput: object(
      {
        name: str({ minLength: 1, maxLength: 200 }),
        layout,
        subject: object(subject, []),
        options: object(options, []),
        previewProductId: str({ pattern: '^[A-Za-z0-9._-]{1,100}$', description: 'For productFrom "page": the catalog product the preview shows, as a product page would name it' }),
      },
      ['name'],
    ),
    WidgetChange: object({ name: str({ minLength: 1, maxLength: 200 }), layout, subject: object(subject, []), options: object(options, []) }, []),
    Widget: object({
      id: str(),
      name: str(),
      layout,
      subject: object(subject, ['type', 'name', 'url', 'image', 'brand']),
      // These are absent on widgets stored before they existed.
      options: object(options, Object.keys(options).filter((k) => !['reviewLanguages', 'productId', 'productFrom', 'jsonLdSources', 'showReplies', 'sourceIds'].includes(k))),
      createdAt: dateTime,
      updatedAt: dateTime,
      snippet: str({ description: 'The embed snippet, exactly as GET /api/v1/widgets/{id}/embed answers it' }),
    }),
    SourceItem: object({
      id: str(),
      platform: str({ enum: ['google', 'trustpilot', 'yelp', 'facebook', 'g2'] }),
      account: str(),
      name: str(),
      state: str({ enum: [...SOURCE_STATES] }),
      every: str(),
      lastSyncAt: nullable(dateTime),
      lastSuccessAt: nullable(dateTime),
      nextSyncAt: nullable({ ...dateTime, description: 'Null while the source waits for a person (needs_reauth, paused): no sync runs until then' }),
      lastError: nullable(str()),
      heldRemovals: { type: 'integer', minimum: 0, description: 'Removals a full pass held for a person (more than 10 % of the source\'s reviews): Remove them (release-removals) or Keep them (keep-removals)' },
      reviewCount: { type: 'integer' },
      lastResult: nullable({
        ...object({
          at: dateTime,
          full: { type: 'boolean' },
          outcome: str({ enum: ['succeeded', 'failed', 'refused'] }),
          fetched: { type: 'integer' },
          created: { type: 'integer' },
          updated: { type: 'integer' },
          removed: { type: 'integer' },
          rejected: { type: 'integer' },
          error: nullable(str()),
        }),
        description: 'The last sync\'s result (null before the first): its counts, or why it failed (refused: the platform refused the credentials)',
      }),
      replyMissing: {
        type: 'array',
        items: str(),
        description: 'The credential fields missing before replies can be posted from here (Trustpilot: apiSecret, businessUserId), by name; empty when none is or the platform has no reply API',
      },
    }),
    SourceAttention: object({
      data: {
        type: 'array',
        items: object({ id: str(), platform: str({ enum: ['google', 'trustpilot', 'yelp', 'facebook', 'g2'] }), name: str(), state: str({ enum: ['needs_reauth', 'failing'] }), lastError: nullable(str()) }),
      },
    }),
    SourceList: object({
      data: { type: 'array', items: ref('SourceItem') },
      google: object({ configured: { type: 'boolean' }, redirectUri: str({ format: 'uri' }), authorized: { type: 'boolean' } }),
    }),
    SourceConnect: object(
      {
        platform: str({ minLength: 1, maxLength: 20 }),
        account: str({ minLength: 1, maxLength: 300 }),
        name: str({ maxLength: 200 }),
        every: str({ maxLength: 20 }),
        credentials: { type: 'object', additionalProperties: str({ maxLength: 4096 }), description: 'The platform\'s fields (Trustpilot, Yelp: apiKey; Facebook: pageAccessToken; G2: apiToken); never answered' },
      },
      ['platform', 'account', 'credentials'],
    ),
    ReplyText: object({ text: str({ minLength: 1, maxLength: 20000, description: 'The reply; the platform\'s own limit (Google: 4,096 bytes of UTF-8) is checked by the service, a 400 naming it' }) }),
    ReplyApprove: object({ text: str({ minLength: 1, maxLength: 20000, description: 'The draft\'s text as the approver read it: a 409 when the draft changed since (nothing is posted)' }) }),
    ReplyPublish: object({ text: str({ minLength: 1, maxLength: 20000, description: 'Absent: the caller\'s own draft, or a failed or waiting reply, is what is posted; on a draft someone else wrote, a 400 (send the words read)' }), now: { type: 'boolean', description: 'Skip the organization\'s delay' } }, []),
    ReplySettings: object({ delayMinutes: { type: 'integer', minimum: 0, maximum: 60, description: 'Minutes between approval and posting (default 5)' } }),
    AutoReplyRule: object({
      enabled: { type: 'boolean', description: 'Off by default: nothing is posted without a person unless this is on' },
      minRating: nullable({ type: 'integer', minimum: 1, maximum: 5, description: 'Reviews of this many stars or more that have no text' }),
      templateId: nullable(str({ description: 'A template of the organization suiting every rating from minRating to 5' })),
    }),
    ReplyItem: object({
      reviewId: str(),
      platform: str(),
      state: str({ enum: ['draft', 'scheduled', 'publishing', 'published', 'failed', 'deleted'] }),
      text: str(),
      scheduledAt: nullable(dateTime),
      publishedAt: nullable(dateTime),
      error: nullable(str({ description: 'Why it failed, in words a person can act on; while publishing, the last attempt\'s reason' })),
      date: nullable(dateTime),
      author: str({ description: 'Who wrote it (a member\'s email, or operator)' }),
      approvedBy: nullable(str()),
      updatedAt: dateTime,
    }),
    ReplyTemplateInput: object({
      name: str({ description: '1–80 characters' }),
      language: str({ description: 'Two-letter code (en, de, fr…)' }),
      ratings: { type: 'array', items: { type: 'integer' }, description: 'The star ratings it suits, 1–5, at least one' },
      text: str({ description: 'With {author}, {business} and {product}; at most 4,096 bytes of UTF-8' }),
    }),
    ReplyTemplate: object({
      id: str(),
      name: str(),
      language: str(),
      ratings: { type: 'array', items: { type: 'integer', minimum: 1, maximum: 5 } },
      text: str({ description: 'In the list: as written, with its placeholders; in the composer: filled in for the review' }),
      updatedAt: dateTime,
    }),
    ReplyTemplateList: object({ data: { type: 'array', items: ref('ReplyTemplate') }, max: { type: 'integer', description: 'Templates an organization may keep' } }),
    ReplyTemplateRemoved: object({ id: str(), removed: { type: 'boolean' } }),
    ReplyComposer: object({
      reviewId: str(),
      platform: str(),
      organization: str({ description: 'The organization\'s name, as the reply is signed on the platforms ("Response from …")' }),
      reply: nullable(ref('ReplyItem')),
      shown: nullable(object({ text: str(), date: dateTime }, ['text', 'date'])),
      noReplyApi: nullable(str({ description: 'Why this review cannot be answered here (a platform without a reply API, a file import without a source); null when it can' })),
      blocked: nullable(str({ description: 'What stops a publish now (a source to reconnect, credentials missing); a draft is still possible' })),
      maxBytes: nullable({ type: 'integer', minimum: 1, description: 'The platform\'s limit in bytes of UTF-8 (Google 4,096); null: none' }),
      delayMinutes: { type: 'integer', minimum: 0, maximum: 60 },
      templates: { type: 'array', items: ref('ReplyTemplate'), description: 'The organization\'s templates, filled in for this review ({product}: its product, else the business)' },
      proposal: nullable(ref('ReplyTemplate')),
    }),
    ReplyList: object({ data: { type: 'array', items: ref('ReplyItem') }, delayMinutes: { type: 'integer', minimum: 0, maximum: 60 } }),
    SourceReconnect: object({ credentials: { type: 'object', additionalProperties: str({ maxLength: 4096 }) } }),
    GoogleConnect: object({ account: str({ minLength: 1, maxLength: 300, description: 'The location: accounts/{account}/locations/{location}' }), name: str({ maxLength: 200 }) }, ['account']),
    GoogleLocations: object({
      data: { type: 'array', items: object({ account: str(), title: str(), accountName: str() }) },
      error: nullable(str()),
    }),
    GoogleStart: object({ authorizationUrl: str({ format: 'uri' }) }),
    SyncSummary: object({
      id: str(),
      state: str({ enum: [...SOURCE_STATES] }),
      fetched: { type: 'integer' },
      created: { type: 'integer' },
      updated: { type: 'integer' },
      removed: { type: 'integer' },
      held: { type: 'integer', description: 'Present when the pass held its removals for a person' },
      rejected: { type: 'array', items: object({ externalId: str(), reason: str() }) },
      requests: { type: 'integer' },
    }, ['id', 'state', 'fetched', 'created', 'updated', 'removed', 'rejected', 'requests']),
    HeldReleased: object({ id: str(), removed: { type: 'integer' } }),
    HeldKept: object({ id: str(), kept: { type: 'integer' } }),
    SourceRemoved: object({ id: str(), removed: { const: true } }),
    WebhookEndpoint: object({
      id: str(),
      url: str({ format: 'uri' }),
      events: { type: 'array', items: str({ enum: [...SUBSCRIBABLE_EVENT_TYPES] }) },
      description: str(),
      state: str({ enum: ['enabled', 'disabled'] }),
      disabledReason: nullable(str({ description: '"manual" when a person disabled it; else why the service did (410 Gone, 5 days of failures)' })),
      createdAt: dateTime,
      lastDeliveryAt: nullable(dateTime),
      failingSince: nullable(dateTime),
    }),
    WebhookList: list('WebhookEndpoint'),
    WebhookCreate: object(
      {
        url: str({ maxLength: 2000, description: 'https: only; an address in a private network is refused unless in WEBHOOK_ALLOW_NETWORKS' }),
        events: { type: 'array', items: str({ enum: [...SUBSCRIBABLE_EVENT_TYPES] }), minItems: 1, description: 'Default: every review.* and source.* type' },
        description: str({ maxLength: 500 }),
      },
      ['url'],
    ),
    WebhookCreated: object({
      id: str(),
      url: str({ format: 'uri' }),
      events: { type: 'array', items: str({ enum: [...SUBSCRIBABLE_EVENT_TYPES] }) },
      description: str(),
      state: { const: 'enabled' },
      secret: str({ pattern: '^whsec_', description: 'Shown in this answer only' }),
      createdAt: dateTime,
    }),
    WebhookDelivery: object({
      id: str({ description: 'The message id (webhook-id)' }),
      type: str({ enum: [...EVENT_TYPES] }),
      status: str({ enum: ['pending', 'delivered', 'failed'] }),
      attempts: { type: 'integer' },
      lastStatusCode: nullable({ type: 'integer' }),
      lastError: nullable(str()),
      lastAttemptAt: nullable(dateTime),
      nextAttemptAt: nullable(dateTime),
    }),
    WebhookDeliveryList: list('WebhookDelivery'),
    WebhookReplayed: object({ id: str(), status: { const: 'pending' } }),
    WebhookTested: object({ id: str(), status: str({ enum: ['pending', 'delivered', 'failed'] }), statusCode: nullable({ type: 'integer' }) }),
    WebhookSecret: object({ id: str(), secret: str({ pattern: '^whsec_', description: 'Shown in this answer only' }) }),
    WebhookState: object({ id: str(), state: str({ enum: ['enabled', 'disabled'] }) }),
    WebhookRemoved: object({ id: str(), removed: { const: true } }),
    Finding: object({ rule: str(), severity: str({ enum: ['error', 'warning'] }), message: str(), link: str({ format: 'uri' }) }),
    WidgetPreview: object({ data: ref('PublicWidgetData'), findings: { type: 'array', items: ref('Finding') } }),
    // The public document's own schemas (/api/v1/openapi.json): the preview is the public data.
    PublicWidgetData: PublicWidgetData!,
    PublicReview: PublicReview!,
    Platform: Platform!,
    JsonLd: JsonLd!,
  };
}

export interface Operation {
  method: 'get' | 'post' | 'patch' | 'put' | 'delete';
  /** OpenAPI template under /dashboard/api, e.g. `/keys/{id}/revoke`. */
  path: string;
  summary: string;
  request?: string;
  /** A raw request body (a file) in one of these media types, instead of a JSON `request`. */
  upload?: readonly string[];
  /** Status → schema name (null: no body). */
  responses: Record<number, string | null>;
  /** Roles allowed; absent = anyone signed in; 'public' = no session needed. */
  roles?: readonly string[] | 'public';
}

const STAFF = ['owner', 'admin'] as const;

/** Every dashboard endpoint. Errors (4xx/5xx) all use the Error schema. */
export const OPERATIONS: Operation[] = [
  { method: 'get', path: '/openapi.json', summary: 'This document', responses: { 200: 'Document' }, roles: 'public' },
  { method: 'get', path: '/session', summary: 'Who is signed in, the organization and plan, and the CSRF token', responses: { 200: 'Session' }, roles: 'public' },
  { method: 'post', path: '/sign-in', summary: 'Sign in with email and password; sets a new session cookie and the device cookie rp_device (exempts this browser from the per-email sign-in limits for that email)', request: 'SignIn', responses: { 200: 'Session' }, roles: 'public' },
  { method: 'post', path: '/sign-out', summary: 'End this session on the server', responses: { 204: null } },
  {
    method: 'post',
    path: '/session/organization',
    summary: "Switch the session's current organization to another the person belongs to: a new session (cookie and CSRF token) in it; 404 for an organization they are not a member of",
    request: 'OrganizationSwitch',
    responses: { 200: 'Session' },
  },
  { method: 'get', path: '/overview', summary: 'Figures and chart series (last 12 UTC months) for the overview page, from maintained aggregates', responses: { 200: 'Overview' } },
  {
    method: 'get',
    path: '/reviews',
    summary: "The organization's reviews, newest first, with each one's moderation. Query parameters exactly as GET /api/v1/reviews (limit, offset, platform, minRating, maxRating, since, language), and notReplied=true|false: true keeps only reviews of a platform that shows replies (Google, Trustpilot, DIRECT) that have no reply (other platforms never match)",
    responses: { 200: 'ReviewList' },
  },
  {
    method: 'get',
    path: '/reviews/import',
    summary: "The organization's upload running now, or the last one and how it ended (finished, interrupted, failed), with the reviews it kept: for a page reloaded mid-upload or another tab (Owner, Admin). Known to the instance that ran it",
    responses: { 200: 'ImportStatus' },
    roles: STAFF,
  },
  {
    method: 'post',
    path: '/reviews/import',
    summary: `Import reviews (Owner, Admin): the body is the file, streamed; query format=ndjson|json|csv; Content-Length required (411), at most 512 MiB (413). Re-importing updates, never duplicates, never un-hides`,
    upload: ['text/csv', 'application/x-ndjson', 'application/json', 'application/octet-stream'],
    responses: { 200: 'ImportSummary' },
    roles: STAFF,
  },
  {
    method: 'get',
    path: '/products',
    summary: "A page of the organization's product catalog by id, each product with its review count and average; query offset, limit (at most 100, default 50), q (ids and names containing it, any case)",
    responses: { 200: 'ProductList' },
  },
  {
    method: 'get',
    path: '/products/import',
    summary: "The organization's product upload running now, or the last one and how it ended, with the products it kept (Owner, Admin). Known to the instance that ran it",
    responses: { 200: 'ImportStatus' },
    roles: STAFF,
  },
  {
    method: 'post',
    path: '/products/import',
    summary: 'Import products (Owner, Admin): the body is the file, streamed; query format=csv|ndjson (fields id, name, url, imageUrl, gtin, brand); Content-Length required (411), at most 512 MiB (413); one upload per organization at a time, reviews and products together (429). Each line is checked and stored on its own; a known id is updated (audit-logged)',
    upload: ['text/csv', 'application/x-ndjson', 'application/octet-stream'],
    responses: { 200: 'ProductImportSummary' },
    roles: STAFF,
  },
  { method: 'post', path: '/products', summary: 'Add a product: the fields are checked as the admin API and the CLI check them, 400 with one detail per field; 409 product_exists for an id already in the catalog (audit-logged)', request: 'ProductInput', responses: { 201: 'Product' }, roles: STAFF },
  { method: 'patch', path: '/products/{id}', summary: "Edit a product: every field replaced (a field left out becomes null; the id cannot change); 404 product_not_found (audit-logged)", request: 'ProductChange', responses: { 200: 'Product' }, roles: STAFF },
  { method: 'delete', path: '/products/{id}', summary: 'Remove a product; 409 product_has_reviews while reviews name it (audit-logged)', responses: { 200: 'ProductRemoved' }, roles: STAFF },
  { method: 'post', path: '/reviews/{id}/hide', summary: 'Hide a review from widgets and JSON-LD review items, with a reason (Owner, Admin); statistics keep counting it', request: 'ReviewHide', responses: { 200: 'ReviewItem' }, roles: STAFF },
  { method: 'post', path: '/reviews/{id}/show', summary: 'Show a hidden review again (Owner, Admin)', responses: { 200: 'ReviewItem' }, roles: STAFF },
  { method: 'get', path: '/replies', summary: "The organization's replies (query state=draft|scheduled|publishing|published|failed|deleted), newest change first, and its delay", responses: { 200: 'ReplyList' } },
  { method: 'get', path: '/replies/templates', summary: 'The organization\'s reply templates, by name', responses: { 200: 'ReplyTemplateList' } },
  { method: 'post', path: '/replies/templates', summary: 'Add a reply template (Owner, Admin; audit-logged): 400 naming the field; 409 limit_reached past 100 per organization', request: 'ReplyTemplateInput', responses: { 201: 'ReplyTemplate' }, roles: STAFF },
  { method: 'patch', path: '/replies/templates/{id}', summary: 'Change a reply template, every field replaced (Owner, Admin; audit-logged)', request: 'ReplyTemplateInput', responses: { 200: 'ReplyTemplate' }, roles: STAFF },
  { method: 'delete', path: '/replies/templates/{id}', summary: 'Remove a reply template (Owner, Admin; audit-logged)', responses: { 200: 'ReplyTemplateRemoved' }, roles: STAFF },
  { method: 'patch', path: '/replies/settings', summary: 'The delay between approval and posting, 0–60 minutes (Owner, Admin)', request: 'ReplySettings', responses: { 200: 'ReplySettings' }, roles: STAFF },
  { method: 'get', path: '/replies/auto-reply', summary: 'The automatic-reply rule (off unless set)', responses: { 200: 'AutoReplyRule' } },
  { method: 'patch', path: '/replies/auto-reply', summary: 'Set the automatic-reply rule: reply with a template to new reviews of minRating stars or more that have no text, after the delay (Owner, Admin; audit-logged); 400 naming the field, or when the template does not suit every rating from minRating to 5', request: 'AutoReplyRule', responses: { 200: 'AutoReplyRule' }, roles: STAFF },
  { method: 'get', path: '/reviews/{id}/reply', summary: 'What the Reviews page\'s composer needs for one review: its reply (or null), why its platform takes no reply, what stops a publish now, the platform\'s limit in bytes and the delay', responses: { 200: 'ReplyComposer' } },
  { method: 'post', path: '/reviews/{id}/reply/draft', summary: 'Write a draft reply (anyone; a Member\'s draft waits for an Owner or Admin). A platform without a reply API (Yelp, Facebook, G2, Capterra, a file import) is a 400 saying so', request: 'ReplyText', responses: { 200: 'ReplyItem' } },
  { method: 'patch', path: '/reviews/{id}/reply', summary: 'Change the text of a draft (anyone) or of a reply waiting for its delay (Owner, Admin)', request: 'ReplyText', responses: { 200: 'ReplyItem' } },
  { method: 'post', path: '/reviews/{id}/reply/publish', summary: 'Publish (Owner, Admin): posted after the organization\'s delay, or at once with now; retried on 429/5xx, then failed with the platform\'s reason. Publishes and deletes together at most 60 a minute per organization: 429 with Retry-After', request: 'ReplyPublish', responses: { 200: 'ReplyItem' }, roles: STAFF },
  { method: 'post', path: '/reviews/{id}/reply/approve', summary: 'Approve the draft (Owner, Admin) as read: text is the draft the approver saw, and a 409 when the draft changed since (nothing is posted); posted after the delay (counted as a publish: 429 with Retry-After past 60 a minute per organization)', request: 'ReplyApprove', responses: { 200: 'ReplyItem' }, roles: STAFF },
  { method: 'post', path: '/reviews/{id}/reply/cancel', summary: 'Cancel a reply waiting for its delay (Owner, Admin): back to draft, nothing posted', responses: { 200: 'ReplyItem' }, roles: STAFF },
  { method: 'delete', path: '/reviews/{id}/reply', summary: 'Delete the reply from its platform and the review (Owner, Admin; audit-logged; counted with the publishes: 429 with Retry-After past 60 a minute per organization)', responses: { 200: 'ReplyItem' }, roles: STAFF },
  { method: 'get', path: '/widgets', summary: "The widgets, and the organization's platforms, catalog and sources (for the builder)", responses: { 200: 'WidgetList' } },
  {
    method: 'post',
    path: '/widgets/preview',
    summary: 'Unsaved options as the widget would show them: the public widget data and the SEO lint findings; nothing is stored',
    request: 'WidgetPreviewInput',
    responses: { 200: 'WidgetPreview' },
  },
  { method: 'get', path: '/widgets/{id}', summary: 'One widget with its embed snippet (another organization\'s is 404)', responses: { 200: 'Widget' } },
  { method: 'post', path: '/widgets', summary: 'Create a widget (audit-logged)', request: 'WidgetInput', responses: { 201: 'Widget' }, roles: STAFF },
  { method: 'patch', path: '/widgets/{id}', summary: 'Change a widget: the fields given, subject and options merged field by field (audit-logged)', request: 'WidgetChange', responses: { 200: 'Widget' }, roles: STAFF },
  { method: 'get', path: '/keys', summary: 'API keys (Owner, Admin)', responses: { 200: 'KeyList' }, roles: STAFF },
  { method: 'post', path: '/keys', summary: 'Create an API key: the full key is in this answer only', request: 'KeyCreate', responses: { 201: 'CreatedKey' }, roles: STAFF },
  { method: 'post', path: '/keys/{id}/revoke', summary: 'Revoke a key, for good', responses: { 200: 'RevokedKey' }, roles: STAFF },
  {
    method: 'get',
    path: '/invitations/import',
    summary: "The organization's review-invitation upload running now, or the last one and how it ended, with what it kept: imported = invitations created, updated = lines invited before (same orderRef and email), skippedTotal, rejectedTotal (Owner, Admin). Known to the instance that ran it; maxImportBytes is the largest file taken",
    responses: { 200: 'InvitationImportStatus' },
    roles: STAFF,
  },
  {
    method: 'post',
    path: '/invitations/import',
    summary: 'Invite customers from a CSV file (Owner, Admin; CONTRACT §14): the body is the file, streamed; query format=csv; a header row naming email (required) and any of name, productId, orderRef, locale, sendAt, in any order (an unknown column: nothing is read, fileError says why); Content-Length required (411), at most 512 MiB (413); one upload per organization at a time, whatever it imports (429). Each line is checked as POST /api/v1/invitations checks an item and rejected with its number, the rest created in batches; the same orderRef and email again is `existing`; the 30-day rule and unsubscribes are `skipped`. 409 invitation_limit_reached when the organization\'s cap would be passed (the lines before stay). Audit-logged (invitation.imported)',
    upload: ['text/csv', 'application/octet-stream'],
    responses: { 200: 'InvitationImportSummary' },
    roles: STAFF,
  },
  { method: 'get', path: '/members', summary: 'Members and open invitations', responses: { 200: 'MemberList' } },
  { method: 'post', path: '/invitations', summary: 'Invite by email and role: a one-time link valid 7 days, mailed when SMTP_URL is set (then not in the answer; a mail that could not be sent is a 502 and no invitation is left), else answered to pass on', request: 'Invite', responses: { 201: 'InvitationCreated' }, roles: STAFF },
  { method: 'delete', path: '/invitations/{id}', summary: 'Revoke an open invitation, for good: its link stops working (audit-logged; an Owner invitation only by an Owner)', responses: { 204: null }, roles: STAFF },
  { method: 'patch', path: '/members/{id}', summary: "Change a member's role", request: 'RoleChange', responses: { 200: 'Member' }, roles: STAFF },
  { method: 'delete', path: '/members/{id}', summary: 'Remove a member; their sessions end at once', responses: { 204: null }, roles: STAFF },
  { method: 'post', path: '/invitations/lookup', summary: 'What an invitation link is for (the token is in the body, never in a URL)', request: 'InvitationToken', responses: { 200: 'InvitationInfo' }, roles: 'public' },
  { method: 'post', path: '/invitations/accept', summary: "Accept an invitation: a new email sets its password; an email that has an account gives that account's password (a sign-in, throttled as one; 401 when wrong) and the membership is added. Either way, signed in to the invitation's organization", request: 'InvitationAccept', responses: { 200: 'Session' }, roles: 'public' },
  { method: 'get', path: '/collect', summary: 'The review page: its link, one link per product, the share link, the moderation setting, whether mails are sent, and rejected reviews by rating', responses: { 200: 'Collect' } },
  { method: 'post', path: '/collect/link/rotate', summary: 'Replace the review page link: the old one answers 404 from now on (audit-logged)', responses: { 200: 'CollectLink' }, roles: STAFF },
  { method: 'patch', path: '/collect/settings', summary: 'The share link (https, or null) shown on every thank-you page, and moderation publish|hold (audit-logged)', request: 'CollectSettingsPatch', responses: { 200: 'CollectSettings' }, roles: STAFF },
  { method: 'get', path: '/collect/pending', summary: 'Reviews from the review page waiting for their email step or a person, oldest first', responses: { 200: 'PendingReviewList' } },
  { method: 'post', path: '/collect/reviews/{id}/publish', summary: 'Publish a pending review (review.created; audit-logged); 409 not_pending once decided', responses: { 200: 'PendingPublished' }, roles: STAFF },
  { method: 'post', path: '/collect/reviews/{id}/reject', summary: 'Reject a pending or published review with a reason (a published one is removed: review.removed; audit-logged)', request: 'PendingReject', responses: { 200: 'PendingRejected' }, roles: STAFF },
  { method: 'get', path: '/invitations', summary: "Review invitations, newest first (query state, limit 1–100 default 20, offset), with the counts per state and the conversion over 30 and 90 days; the one place an invitee's address is shown", responses: { 200: 'ReviewInvitationPage' } },
  { method: 'post', path: '/invitations/{id}/cancel', summary: 'Cancel a review invitation not reviewed yet: no mail or reminder follows and its link ends (audit-logged); 409 not_cancellable once reviewed, skipped or expired', responses: { 200: 'ReviewInvitationCancelled' }, roles: STAFF },
  { method: 'get', path: '/invitations/settings', summary: 'The invitation settings: delay, reminder, default language, sender name', responses: { 200: 'InvitationSettings' } },
  { method: 'put', path: '/invitations/settings', summary: 'Replace the invitation settings (every field; audit-logged); 400 invalid_parameter with one detail per field. The review page settings are kept', request: 'InvitationSettings', responses: { 200: 'InvitationSettings' }, roles: STAFF },
  { method: 'get', path: '/invitations/preview', summary: "The invitation mail (reminder=1: the reminder) in a language (lang), for this organization, with a sample product of the catalog; and whether mails are sent (SMTP_URL)", responses: { 200: 'InvitationPreview' } },
  { method: 'get', path: '/audit', summary: 'Audit log, newest first (Owner, Admin)', responses: { 200: 'AuditList' }, roles: STAFF },
  { method: 'get', path: '/sources', summary: 'Review sources with their state, last and next sync, review count and last error; whether Google can be connected', responses: { 200: 'SourceList' } },
  { method: 'get', path: '/sources/attention', summary: 'The sources that need a person (needs_reauth, failing): the navigation badge and the Overview notice', responses: { 200: 'SourceAttention' } },
  { method: 'post', path: '/sources', summary: 'Connect a source with its credentials (in this body only, never answered; audit-logged). The credentials are proved first with one call to the platform: refused is a 400 (credentials_refused, account_unknown), a platform that cannot be asked a 502/503, and nothing is stored. The first sync starts at once. Google: /sources/google/start', request: 'SourceConnect', responses: { 201: 'SourceItem' }, roles: STAFF },
  { method: 'post', path: '/sources/google/start', summary: "Start Google's OAuth 2.0 authorization-code flow with PKCE: the URL to send the browser to (state bound to this session, single use, 10 minutes)", responses: { 200: 'GoogleStart' }, roles: STAFF },
  { method: 'get', path: '/sources/google/locations', summary: 'The Business Profile locations the person who authorized Google manages (Account Management and Business Information APIs); error set when Google did not list them', responses: { 200: 'GoogleLocations' }, roles: STAFF },
  { method: 'post', path: '/sources/google', summary: 'After Google authorized this session: connect (or reconnect) the Google location named (audit-logged)', request: 'GoogleConnect', responses: { 200: 'SourceItem', 201: 'SourceItem' }, roles: STAFF },
  { method: 'post', path: '/sources/{id}/sync', summary: 'Sync now (incremental; full=true: a full pass, which also removes what the platform no longer lists); answers the summary when done', responses: { 200: 'SyncSummary' }, roles: STAFF },
  { method: 'post', path: '/sources/{id}/reconnect', summary: 'New credentials for a source, proved with one call to the platform first (refused: 400 and nothing changes); then needs_reauth → active and a sync starts at once (audit-logged)', request: 'SourceReconnect', responses: { 200: 'SourceItem' }, roles: STAFF },
  { method: 'post', path: '/sources/{id}/release-removals', summary: 'Remove them: the removals a full pass held are made (review.removed sent; audit-logged)', responses: { 200: 'HeldReleased' }, roles: STAFF },
  { method: 'post', path: '/sources/{id}/keep-removals', summary: 'Keep them: the held reviews stay and are no longer counted as collected by this source (audit-logged)', responses: { 200: 'HeldKept' }, roles: STAFF },
  { method: 'delete', path: '/sources/{id}', summary: 'Remove a source and its schedule (its reviews stay; audit-logged)', responses: { 200: 'SourceRemoved' }, roles: STAFF },
  { method: 'get', path: '/webhooks', summary: 'Webhook endpoints with their state, last delivery and why a disabled one was disabled (Owner, Admin)', responses: { 200: 'WebhookList' }, roles: STAFF },
  { method: 'post', path: '/webhooks', summary: 'Add an endpoint: the signing secret is in this answer only (audit-logged). At most WEBHOOK_MAX_ENDPOINTS (20) per organization: 409 webhook_limit_reached past it; creations, tests and rotations together at most 30 a minute per organization: 429 with Retry-After', request: 'WebhookCreate', responses: { 201: 'WebhookCreated' }, roles: STAFF },
  { method: 'get', path: '/webhooks/{id}', summary: 'One endpoint (another organization\'s is 404)', responses: { 200: 'WebhookEndpoint' }, roles: STAFF },
  { method: 'get', path: '/webhooks/{id}/deliveries', summary: 'The delivery log, newest first; query status=pending|delivered|failed', responses: { 200: 'WebhookDeliveryList' }, roles: STAFF },
  { method: 'post', path: '/webhooks/{id}/deliveries/{messageId}/replay', summary: 'Send a message again under the same webhook-id (audit-logged)', responses: { 200: 'WebhookReplayed' }, roles: STAFF },
  { method: 'post', path: '/webhooks/{id}/test', summary: 'Send a webhook.test event now; answers the attempt\'s outcome (audit-logged; counted with creations and rotations, 30 a minute per organization: 429 with Retry-After)', responses: { 200: 'WebhookTested' }, roles: STAFF },
  { method: 'post', path: '/webhooks/{id}/rotate-secret', summary: 'A new signing secret, in this answer only; the old one also signs for 24 hours, 3 live secrets at most (a fourth rotation ends the oldest at once); audit-logged, counted with creations and tests (30 a minute per organization: 429 with Retry-After)', responses: { 200: 'WebhookSecret' }, roles: STAFF },
  { method: 'post', path: '/webhooks/{id}/enable', summary: 'Enable again: what is pending resumes (audit-logged)', responses: { 200: 'WebhookState' }, roles: STAFF },
  { method: 'post', path: '/webhooks/{id}/disable', summary: 'Disable: nothing is sent until enabled again (audit-logged)', responses: { 200: 'WebhookState' }, roles: STAFF },
  { method: 'delete', path: '/webhooks/{id}', summary: 'Remove an endpoint and its delivery log (audit-logged)', responses: { 200: 'WebhookRemoved' }, roles: STAFF },
];

export function dashboardOpenApi(): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of OPERATIONS) {
    const responses: Record<string, unknown> = {};
    for (const [status, schema] of Object.entries(op.responses)) {
      responses[status] = schema === null ? { description: 'No body' } : { description: 'OK', content: { 'application/json': { schema: ref(schema) } } };
    }
    responses.default = { description: 'Error envelope', content: { 'application/json': { schema: ref('Error') } } };
    (paths[op.path] ??= {})[op.method] = {
      summary: op.summary,
      ...(op.roles !== 'public' && { security: [{ session: [] }], 'x-roles': op.roles ?? [...ROLES] }),
      ...(op.request && { requestBody: { required: true, content: { 'application/json': { schema: ref(op.request) } } } }),
      ...(op.upload && { requestBody: { required: true, content: Object.fromEntries(op.upload.map((type) => [type, { schema: { type: 'string', contentMediaType: type } }])) } }),
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Review Proof dashboard API',
      version: '1',
      description:
        'JSON endpoints of the dashboard. Session cookie only (Bearer keys are ignored). State-changing requests need the Origin of PUBLIC_URL and the X-CSRF-Token header from GET /session.',
    },
    servers: [{ url: '/dashboard/api' }],
    paths,
    components: {
      schemas,
      securitySchemes: { session: { type: 'apiKey', in: 'cookie', name: 'rp_session' } },
    },
  };
}
