/**
 * The review page's words (api/collect: the page where customers write a
 * review, its confirmation and its mail), in the widget's 22 languages, keyed
 * once. Kept beside the widget's catalogs rather than inside them: the
 * widget's JSON catalogs are fetched by every page that shows a widget, and
 * these words are never needed there. The star labels are the widget's own
 * (`stars` in messages.ts / catalogs.ts). `review-page.test.ts` checks every
 * language has every key and placeholder.
 */
export interface ReviewPageMessages {
  /** "Review {org}": the page title and heading, {org} the organization. */
  title: string;
  /** "How was your experience with {s}?", {s} the organization or the product. */
  intro: string;
  rating: string;
  review: string;
  /** Under the text box: "Up to 5,000 characters." */
  reviewHint: string;
  name: string;
  nameHint: string;
  email: string;
  emailHint: string;
  consent: string;
  submit: string;
  errSummary: string;
  errRating: string;
  errReview: string;
  errName: string;
  errEmail: string;
  errConsent: string;
  errForm: string;
  thanksTitle: string;
  thanksMail: string;
  thanksHeld: string;
  /** "Also share your experience on {site}" */
  share: string;
  confirmTitle: string;
  confirmText: string;
  confirmButton: string;
  confirmedPublished: string;
  confirmedHeld: string;
  linkGone: string;
  notFoundTitle: string;
  notFound: string;
  tooManyTitle: string;
  tooMany: string;
  editTitle: string;
  save: string;
  saved: string;
  deleteTitle: string;
  deleteButton: string;
  deleted: string;
  /** Mail subject: "Confirm your review of {org}" */
  mailSubject: string;
  /** "Thank you for your review of {s}. Please confirm it: the link works once, for 7 days." */
  mailIntro: string;
  /** "To change or delete your review later, use this private link:" */
  mailManage: string;
  mailIgnore: string;
}

export const REVIEW_PAGE_EN: ReviewPageMessages = {
  title: 'Review {org}',
  intro: 'How was your experience with {s}?',
  rating: 'Rating',
  review: 'Your review',
  reviewHint: 'Up to 5,000 characters.',
  name: 'Your name',
  nameHint: 'Shown with your review.',
  email: 'Email',
  emailHint: 'Never shown. We send you a link to confirm your review.',
  consent: 'This review is about my own experience',
  submit: 'Send review',
  errSummary: 'Please correct the fields marked below.',
  errRating: 'Choose a rating from 1 to 5 stars.',
  errReview: 'Write your review (up to 5,000 characters).',
  errName: 'Enter your name (up to 100 characters).',
  errEmail: 'Enter a valid email address.',
  errConsent: 'Confirm that this review is about your own experience.',
  errForm: 'This form has expired or was sent too quickly. Please check your review and send it again.',
  thanksTitle: 'Thank you for your review',
  thanksMail: 'We sent you an email. Open the link in it to confirm your review.',
  thanksHeld: 'Your review will appear once it has been checked.',
  share: 'Also share your experience on {site}',
  confirmTitle: 'Confirm your review',
  confirmText: 'Press the button to confirm that you wrote this review.',
  confirmButton: 'Confirm my review',
  confirmedPublished: 'Thank you: your review is confirmed and published.',
  confirmedHeld: 'Thank you: your review is confirmed. It will appear once it has been checked.',
  linkGone: 'This link has expired or was already used.',
  notFoundTitle: 'Page not found',
  notFound: 'This review page does not exist or is no longer in use.',
  tooManyTitle: 'Too many reviews',
  tooMany: 'Too many reviews were sent from your connection. Please try again in an hour.',
  editTitle: 'Your review',
  save: 'Save changes',
  saved: 'Your changes are saved.',
  deleteTitle: 'Delete your review',
  deleteButton: 'Delete my review',
  deleted: 'Your review was deleted.',
  mailSubject: 'Confirm your review of {org}',
  mailIntro: 'Thank you for your review of {s}. Please confirm it with this link; it works once, for 7 days:',
  mailManage: 'To change or delete your review later, use this private link:',
  mailIgnore: 'If you did not write this review, ignore this email: nothing will be published.',
};

/** Every language but English; filled in below. */
export const REVIEW_PAGE_CATALOGS: Record<string, ReviewPageMessages> = {};
