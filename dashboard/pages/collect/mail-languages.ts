/**
 * The languages the invitation mail is written in: the review page's
 * (api/collect/words.ts PAGE_LANGUAGES, English and the 23 translations).
 * Written out here so the dashboard does not bundle the catalogs;
 * api/dashboard/invitations.test.ts checks the two lists agree.
 */
export const MAIL_LANGUAGES = ['ar', 'cs', 'da', 'de', 'el', 'en', 'es', 'fi', 'fr', 'he', 'hu', 'id', 'it', 'ja', 'ko', 'nb', 'nl', 'pl', 'pt', 'ru', 'sv', 'tr', 'uk', 'zh'] as const;

/** "German", "Norwegian Bokmål": a language's English name (the dashboard speaks English). */
export function languageName(code: string): string {
  try {
    return new Intl.DisplayNames(['en'], { type: 'language' }).of(code) ?? code;
  } catch {
    return code;
  }
}
