/** Why a review is hidden, in the words the page uses (the API's codes: CONTRACT §7). */
import type { HideReason } from '../../api.ts';

export const REASONS: { value: HideReason; label: string; hint: string }[] = [
  { value: 'spam', label: 'Spam', hint: 'Advertising, links, or text that is not a review.' },
  { value: 'offensive', label: 'Offensive', hint: 'Insults, hate or threats.' },
  { value: 'personal_data', label: 'Personal data', hint: 'Names, phone numbers or addresses of people who did not agree to be named.' },
  { value: 'not_about_us', label: 'Not about us', hint: 'The review is about another business or product.' },
];

export const reasonLabel = (value: HideReason): string => REASONS.find((r) => r.value === value)?.label ?? value;
