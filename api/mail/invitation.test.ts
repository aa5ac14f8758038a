/**
 * The invitation mail rendered from data (CONTRACT §14): its language, the
 * star links, the unsubscribe link and headers, the plain-text part, nothing
 * that tracks, hostile names kept in their place, and the same mail for every
 * invitee. What a relay receives is checked in door.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { CATALOGS } from '../../widget/src/i18n/catalogs.ts';
import { PAGE_LANGUAGES } from '../collect/words.ts';
import { invitationLanguage, MAX_NAME_IN_MAIL, previewInvitation, renderInvitation, starUrl, type InvitationMailData } from './invitation.ts';

const base: InvitationMailData = {
  kind: 'invitation',
  locale: null,
  organization: { name: 'Acme & Co', language: 'en' },
  product: { name: 'Blue Mug', imageUrl: 'https://shop.example/img/mug.jpg' },
  inviteeName: 'Ana',
  reviewUrl: 'https://reviews.example/r/i/inv_abc.def',
  unsubscribeUrl: 'https://reviews.example/r/u/org_1.mac.sealed',
};

const hrefs = (html: string): string[] => [...html.matchAll(/href="([^"]*)"/g)].map((m) => m[1]!.replace(/&amp;/g, '&'));

describe('invitation mail', () => {
  it.each([
    ['en', 'How was your experience with Blue Mug?', 'Acme & Co would like to hear about your experience with Blue Mug.', '4 out of 5 stars', 'Unsubscribe from review requests from Acme & Co'],
    ['de', 'Wie war Ihre Erfahrung mit Blue Mug?', 'Acme & Co möchte gern wissen, wie Ihre Erfahrung mit Blue Mug war.', '4 von 5 Sternen', 'Keine Bewertungsanfragen mehr von Acme & Co'],
    ['ja', 'Blue Mugはいかがでしたか？', 'Acme & CoはBlue Mugについてのご感想をお待ちしています。', '5つ星のうち4', 'Acme & Coからのレビュー依頼を停止する'],
  ])('%s: subject, text and HTML say the same, with five star links and a visible unsubscribe link', (locale, subject, ask, four, unsubscribe) => {
    const mail = renderInvitation({ ...base, locale });
    expect(mail.language).toBe(locale);
    expect(mail.subject).toBe(subject);
    expect(mail.fromName).toBe('Acme & Co');
    expect(mail.text).toContain(ask);
    expect(mail.html).toContain(`lang="${locale}"`);
    expect(mail.html).toContain(ask.replace(/&/g, '&amp;'));
    // Five star links, ?rating=1 … 5, in both parts, each labelled with its rating.
    const stars = [1, 2, 3, 4, 5].map((n) => `https://reviews.example/r/i/inv_abc.def?rating=${n}`);
    for (const url of stars) {
      expect(mail.text).toContain(`\n${url}\n`);
      expect(hrefs(mail.html)).toContain(url);
    }
    expect(mail.text).toContain(four);
    expect(mail.html).toContain(`aria-label="${four}"`);
    // The unsubscribe link, visible in both parts, and the RFC 8058 pair of headers.
    const unsubscribeUrl = `${base.unsubscribeUrl}?lang=${locale}`;
    expect(mail.text).toContain(`${unsubscribe}:\n${unsubscribeUrl}\n`);
    expect(hrefs(mail.html)).toContain(unsubscribeUrl);
    expect(mail.html).toContain(`>${unsubscribe.replace(/&/g, '&amp;')}</a>`);
    expect(mail.headers['List-Unsubscribe']).toBe(`<${unsubscribeUrl}>`);
    expect(mail.headers['List-Unsubscribe-Post']).toBe('List-Unsubscribe=One-Click');
    // Nothing else is linked: no tracking redirect, no shortener, no pixel; the one picture is the product's.
    expect(hrefs(mail.html).sort()).toEqual([...stars, unsubscribeUrl].sort());
    expect([...mail.html.matchAll(/<img\b[^>]*src="([^"]*)"/g)].map((m) => m[1])).toEqual(['https://shop.example/img/mug.jpg']);
    expect(mail.html).not.toMatch(/<script|<link|url\(|@import|<form|<iframe/i);
  });

  it.each(['en', 'de', 'ja'])('%s: the words of the mail, as a snapshot (a change to them is a change to review)', (locale) => {
    const mail = renderInvitation({ ...base, locale });
    const reminder = renderInvitation({ ...base, locale, kind: 'reminder' });
    expect({ subject: mail.subject, fromName: mail.fromName, text: mail.text, reminderSubject: reminder.subject, reminderText: reminder.text }).toMatchSnapshot();
  });

  it('every language of the review page has its own words, right to left where it reads so', () => {
    const english = renderInvitation(base);
    for (const language of PAGE_LANGUAGES) {
      const mail = renderInvitation({ ...base, locale: language });
      expect(mail.language).toBe(language);
      if (language !== 'en') {
        expect(mail.text, language).not.toBe(english.text);
        expect(mail.subject, language).not.toBe(english.subject);
      }
      expect(mail.text, language).toContain((CATALOGS[language]?.stars ?? '{n} out of 5 stars').replace('{n}', '5'));
      expect(mail.html, language).toContain(`dir="${['ar', 'he'].includes(language) ? 'rtl' : 'ltr'}"`);
      // Every placeholder filled.
      expect(mail.subject + mail.text + mail.html, language).not.toMatch(/\{(org|s|name|n)\}/);
    }
  });

  it("is in the invitation's locale, else the organization's language, else English", () => {
    expect(invitationLanguage('de-AT', 'fr')).toBe('de');
    expect(invitationLanguage('pt_BR', 'fr')).toBe('pt');
    expect(invitationLanguage(null, 'fr')).toBe('fr');
    expect(invitationLanguage('tlh', 'nl')).toBe('nl');
    expect(invitationLanguage('xx', 'yy')).toBe('en');
    expect(renderInvitation({ ...base, locale: null, organization: { name: 'Acme', language: 'fr' } }).language).toBe('fr');
  });

  it('asks about the organization when there is no product, and leaves out a picture that is not https', () => {
    const org = renderInvitation({ ...base, product: null });
    expect(org.subject).toBe('How was your experience with Acme & Co?');
    expect(org.html).not.toContain('<img');
    const plain = renderInvitation({ ...base, product: { name: 'Mug', imageUrl: 'http://shop.example/mug.jpg' } });
    expect(plain.html).not.toContain('<img');
    expect(plain.html).toContain('>Mug</p>');
  });

  it('the reminder says it is one, with the same links', () => {
    const first = renderInvitation(base);
    const reminder = renderInvitation({ ...base, kind: 'reminder' });
    expect(reminder.subject).toBe('Reminder: how was your experience with Blue Mug?');
    expect(reminder.text).toContain('A few days ago Acme & Co asked for your review of Blue Mug.');
    expect(hrefs(reminder.html)).toEqual(hrefs(first.html));
    expect(reminder.headers).toEqual(first.headers);
  });

  it('the sender name setting replaces the organization as display name only', () => {
    const mail = renderInvitation({ ...base, organization: { name: 'Acme & Co', language: 'en', senderName: 'Ana from Acme' } });
    expect(mail.fromName).toBe('Ana from Acme');
    expect(mail.text).toContain('Acme & Co would like');
  });

  it('star links keep the review link whole and replace a rating already in it', () => {
    expect(starUrl('https://r.example/r/i/tok?lang=de', 3)).toBe('https://r.example/r/i/tok?lang=de&rating=3');
    expect(starUrl('https://r.example/r/i/tok?rating=1', 5)).toBe('https://r.example/r/i/tok?rating=5');
  });

  it('refuses links that are not https (a mistake in the caller, never a mail with a plain-HTTP link)', () => {
    expect(() => renderInvitation({ ...base, reviewUrl: 'http://reviews.example/r/i/x' })).toThrow(/reviewUrl must be an https URL/);
    expect(() => renderInvitation({ ...base, unsubscribeUrl: 'javascript:alert(1)' })).toThrow(/unsubscribeUrl must be an https URL/);
  });

  it('a hostile organization, product or invitee name is text: escaped in HTML, on one line in the subject and sender', () => {
    const hostile = renderInvitation({
      ...base,
      organization: { name: 'Evil <script>alert(1)</script>\r\nBcc: victim@else.example', language: 'en' },
      product: { name: 'Mug"><img src=x onerror=alert(1)>\nX-Injected: 1', imageUrl: 'https://shop.example/a.jpg" onerror="alert(1)' },
      inviteeName: '<b>Ana</b>\u2028Reply-To: evil@else.example',
    });
    expect(hostile.fromName).toBe('Evil <script>alert(1)</script> Bcc: victim@else.example');
    expect(hostile.subject).toBe('How was your experience with Mug"><img src=x onerror=alert(1)> X-Injected: 1?');
    expect(hostile.subject + hostile.fromName).not.toMatch(/[\r\n\u2028]/);
    expect(hostile.html).not.toMatch(/<script|<img src=x|<b>Ana/);
    expect(hostile.html).toContain('Evil &lt;script&gt;alert(1)&lt;/script&gt;');
    expect(hostile.html).toContain('src="https://shop.example/a.jpg%22%20onerror=%22alert(1)"');
    expect(hostile.html).not.toContain('" onerror="');
    for (const value of Object.values(hostile.headers)) expect(value).not.toMatch(/[\r\n]/);
  });

  it(`shortens a name longer than ${MAX_NAME_IN_MAIL} characters`, () => {
    const mail = renderInvitation({ ...base, organization: { name: 'A'.repeat(5000), language: 'en' } });
    expect(mail.fromName).toBe(`${'A'.repeat(MAX_NAME_IN_MAIL - 1)}…`);
  });

  it('every invitee gets the same mail: only their name and their own links differ, and nothing known of their opinion changes it', () => {
    const a = renderInvitation(base);
    const b = renderInvitation({ ...base, inviteeName: 'Bo', reviewUrl: 'https://reviews.example/r/i/inv_xyz.uvw', unsubscribeUrl: 'https://reviews.example/r/u/org_1.mac2.sealed2' });
    const neutral = (m: typeof a, name: string, review: string, unsub: string): string =>
      JSON.stringify(m).replaceAll(name, 'NAME').replaceAll(review, 'REVIEW').replaceAll(unsub, 'UNSUB');
    expect(neutral(b, 'Bo', 'inv_xyz.uvw', 'org_1.mac2.sealed2')).toBe(neutral(a, 'Ana', 'inv_abc.def', 'org_1.mac.sealed'));
    // Fields a caller might hold about the invitee (a past rating, a sentiment) have no way in.
    const withOpinion = { ...base, rating: 1, sentiment: 'negative', lastRating: 5 } as InvitationMailData;
    expect(renderInvitation(withOpinion)).toEqual(a);
  });

  it('the preview is the mail for a sample invitee in the chosen language, with links that open nothing', () => {
    const preview = previewInvitation({ language: 'de', organization: { name: 'Acme', language: 'en' }, product: null, publicUrl: 'https://reviews.example/' });
    expect(preview.language).toBe('de');
    expect(preview.text).toContain('Hallo Alex,');
    expect(hrefs(preview.html)).toContain('https://reviews.example/r/i/preview?rating=5');
    expect(preview.headers['List-Unsubscribe']).toBe('<https://reviews.example/r/u/preview?lang=de>');
    expect(previewInvitation({ language: 'ja', kind: 'reminder', organization: { name: 'Acme', language: 'en' }, product: null, publicUrl: 'https://reviews.example' }).subject).toBe('リマインダー：Acmeはいかがでしたか？');
  });
});
