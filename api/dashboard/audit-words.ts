/**
 * Words for audit subjects that the server writes and the dashboard reads:
 * a source is "Trustpilot source “Main shop” (business unit bu-acme-123)",
 * never "trustpilot bu-acme-123". Pure (no Node imports): the dashboard's
 * bundle imports it too, to put records written before these words into words.
 */

/** Each platform a source or a review can come from, as people write it, with what its account id names. */
export const PLATFORM_WORDS: Record<string, { name: string; account: string }> = {
  google: { name: 'Google', account: 'location' },
  trustpilot: { name: 'Trustpilot', account: 'business unit' },
  yelp: { name: 'Yelp', account: 'business' },
  facebook: { name: 'Facebook', account: 'Page' },
  g2: { name: 'G2', account: 'product' },
  capterra: { name: 'Capterra', account: 'product' },
};

/**
 * A source in words: its platform, its name when it is not just the platform and
 * the account (the default name), and its account named as the platform names it.
 */
export function sourceInWords(s: { platform: string; account: string; name?: string | null }): string {
  const key = s.platform.toLowerCase();
  const words = PLATFORM_WORDS[key] ?? { name: s.platform, account: 'account' };
  const name = (s.name ?? '').trim();
  const defaultName = `${key.charAt(0).toUpperCase()}${key.slice(1)} ${s.account}`;
  const named = name && name !== defaultName && name !== s.account ? ` “${name}”` : '';
  return `${words.name} source${named} (${words.account} ${s.account})`;
}

/** The audit target of a source: its id and its words. */
export const sourceAuditTarget = (s: { id: string; platform: string; account: string; name?: string | null }): { id: string; label: string } => ({ id: s.id, label: sourceInWords(s) });

/**
 * A source's label as written before it was in words ("trustpilot bu-acme-123",
 * "TRUSTPILOT bu-acme-123"), in words; null when the label is not of that form.
 */
export function legacySourceLabelInWords(label: string): string | null {
  const match = /^([A-Za-z0-9]+) (\S+)$/.exec(label);
  if (!match || !(match[1]!.toLowerCase() in PLATFORM_WORDS)) return null;
  return sourceInWords({ platform: match[1]!, account: match[2]! });
}
