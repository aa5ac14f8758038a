/** The confirmation mail, rendered from data in the reviewer's language: text and HTML, links whole, text escaped in HTML. */
import { describe, expect, it } from 'vitest';
import { renderConfirmation, type ConfirmationMail } from './mail.ts';

const base: ConfirmationMail = {
  to: 'ana@mail.example',
  language: 'en',
  organization: 'Acme & Co',
  subject: 'Blue <Mug>',
  rating: 4,
  content: 'Nice mug <b>really</b>',
  confirmUrl: 'https://reviews.example/r/confirm/sub_abc.def',
  manageUrl: 'https://reviews.example/r/review/sub_abc.ghi',
};

describe('confirmation mail', () => {
  it.each([
    ['en', 'Confirm your review of Acme & Co', 'Thank you for your review of Blue <Mug>.', '4 out of 5 stars'],
    ['de', 'Bestätigen Sie Ihre Bewertung von Acme & Co', 'Vielen Dank für Ihre Bewertung von Blue <Mug>.', '4 von 5 Sternen'],
    ['ja', 'Acme & Coのレビューを確認してください', 'Blue <Mug>のレビューをありがとうございます。', '5つ星のうち4'],
  ])('%s: subject, text and HTML from the same data', (language, subject, intro, stars) => {
    const mail = renderConfirmation({ ...base, language });
    expect(mail.subject).toBe(subject);
    expect(mail.text).toContain(intro);
    expect(mail.text).toContain(`\n${base.confirmUrl}\n`);
    expect(mail.text).toContain(`\n${base.manageUrl}\n`);
    expect(mail.text).toContain(stars);
    expect(mail.html).toContain(`lang="${language}"`);
    expect(mail.html).toContain(`href="${base.confirmUrl}"`);
    expect(mail.html).toContain(`href="${base.manageUrl}"`);
    expect(mail.html).toContain('Nice mug &lt;b&gt;really&lt;/b&gt;');
    expect(mail.html).not.toContain('<b>really');
    expect(mail.html).not.toMatch(/<img|<script/i);
    // The reviewer's address is the envelope's, never the body's.
    expect(mail.text + mail.html).not.toContain(base.to);
  });
});
