/**
 * The words of an invitation link's pages (api/invitations: `/r/i/{token}`)
 * beyond the review page's own (review-page.ts), in the same 22 languages
 * plus English, keyed once. `invitation-page.test.ts` checks every language
 * has every key.
 */
export interface InvitationPageMessages {
  /** The page of a link already used. */
  receivedTitle: string;
  received: string;
  /** The private link to the review: edit or delete it. */
  editLink: string;
  expiredTitle: string;
  expired: string;
  /** A link whose invitation the organization cancelled. */
  cancelled: string;
  /** The thank-you of an invitee: the review is published at once. */
  thanksPublished: string;
}

export const INVITATION_PAGE_EN: InvitationPageMessages = {
  receivedTitle: 'Review received',
  received: 'We have received your review through this link. Thank you!',
  editLink: 'Change or delete your review',
  expiredTitle: 'This link has expired',
  expired: 'Review links work for 30 days after the invitation was sent.',
  cancelled: 'This invitation is no longer in use.',
  thanksPublished: 'Thank you: your review is published.',
};

export const INVITATION_PAGE_CATALOGS: Record<string, InvitationPageMessages> = {
  ar: { receivedTitle: 'تم استلام التقييم', received: 'لقد استلمنا تقييمك عبر هذا الرابط. شكرًا لك!', editLink: 'تعديل تقييمك أو حذفه', expiredTitle: 'انتهت صلاحية هذا الرابط', expired: 'تعمل روابط التقييم لمدة 30 يومًا بعد إرسال الدعوة.', cancelled: 'لم تعد هذه الدعوة مستخدمة.', thanksPublished: 'شكرًا لك: تم نشر تقييمك.' },
  cs: { receivedTitle: 'Recenze přijata', received: 'Vaši recenzi jsme přes tento odkaz přijali. Děkujeme!', editLink: 'Upravit nebo smazat recenzi', expiredTitle: 'Platnost odkazu vypršela', expired: 'Odkazy na recenzi platí 30 dní od odeslání pozvánky.', cancelled: 'Tato pozvánka už neplatí.', thanksPublished: 'Děkujeme: vaše recenze je zveřejněna.' },
  da: { receivedTitle: 'Anmeldelse modtaget', received: 'Vi har modtaget din anmeldelse via dette link. Tak!', editLink: 'Ret eller slet din anmeldelse', expiredTitle: 'Dette link er udløbet', expired: 'Links til anmeldelser virker i 30 dage, efter invitationen blev sendt.', cancelled: 'Denne invitation bruges ikke længere.', thanksPublished: 'Tak: din anmeldelse er offentliggjort.' },
  de: { receivedTitle: 'Bewertung erhalten', received: 'Wir haben Ihre Bewertung über diesen Link erhalten. Vielen Dank!', editLink: 'Bewertung ändern oder löschen', expiredTitle: 'Dieser Link ist abgelaufen', expired: 'Bewertungslinks gelten 30 Tage ab dem Versand der Einladung.', cancelled: 'Diese Einladung gilt nicht mehr.', thanksPublished: 'Vielen Dank: Ihre Bewertung ist veröffentlicht.' },
  el: { receivedTitle: 'Η κριτική ελήφθη', received: 'Λάβαμε την κριτική σας μέσω αυτού του συνδέσμου. Ευχαριστούμε!', editLink: 'Αλλαγή ή διαγραφή της κριτικής σας', expiredTitle: 'Ο σύνδεσμος έληξε', expired: 'Οι σύνδεσμοι κριτικής ισχύουν 30 ημέρες από την αποστολή της πρόσκλησης.', cancelled: 'Αυτή η πρόσκληση δεν ισχύει πλέον.', thanksPublished: 'Ευχαριστούμε: η κριτική σας δημοσιεύτηκε.' },
  es: { receivedTitle: 'Opinión recibida', received: 'Hemos recibido tu opinión a través de este enlace. ¡Gracias!', editLink: 'Cambiar o eliminar tu opinión', expiredTitle: 'Este enlace ha caducado', expired: 'Los enlaces para opinar funcionan 30 días después de enviar la invitación.', cancelled: 'Esta invitación ya no está en uso.', thanksPublished: 'Gracias: tu opinión está publicada.' },
  fi: { receivedTitle: 'Arvio vastaanotettu', received: 'Saimme arviosi tämän linkin kautta. Kiitos!', editLink: 'Muokkaa tai poista arviosi', expiredTitle: 'Linkki on vanhentunut', expired: 'Arviolinkit toimivat 30 päivää kutsun lähettämisestä.', cancelled: 'Tämä kutsu ei ole enää käytössä.', thanksPublished: 'Kiitos: arviosi on julkaistu.' },
  fr: { receivedTitle: 'Avis reçu', received: 'Nous avons reçu votre avis par ce lien. Merci !', editLink: 'Modifier ou supprimer votre avis', expiredTitle: 'Ce lien a expiré', expired: "Les liens d'avis fonctionnent 30 jours après l'envoi de l'invitation.", cancelled: "Cette invitation n'est plus valable.", thanksPublished: 'Merci : votre avis est publié.' },
  he: { receivedTitle: 'הביקורת התקבלה', received: 'קיבלנו את הביקורת שלך דרך הקישור הזה. תודה!', editLink: 'שינוי או מחיקה של הביקורת', expiredTitle: 'תוקף הקישור פג', expired: 'קישורי ביקורת פועלים 30 יום לאחר שליחת ההזמנה.', cancelled: 'ההזמנה הזו כבר לא בתוקף.', thanksPublished: 'תודה: הביקורת שלך פורסמה.' },
  hu: { receivedTitle: 'Értékelés megérkezett', received: 'Ezen a linken keresztül megkaptuk az értékelését. Köszönjük!', editLink: 'Értékelés módosítása vagy törlése', expiredTitle: 'Ez a link lejárt', expired: 'Az értékelési linkek a meghívó elküldése után 30 napig működnek.', cancelled: 'Ez a meghívó már nem érvényes.', thanksPublished: 'Köszönjük: értékelését közzétettük.' },
  id: { receivedTitle: 'Ulasan diterima', received: 'Kami telah menerima ulasan Anda melalui tautan ini. Terima kasih!', editLink: 'Ubah atau hapus ulasan Anda', expiredTitle: 'Tautan ini kedaluwarsa', expired: 'Tautan ulasan berlaku 30 hari setelah undangan dikirim.', cancelled: 'Undangan ini sudah tidak berlaku.', thanksPublished: 'Terima kasih: ulasan Anda telah diterbitkan.' },
  it: { receivedTitle: 'Recensione ricevuta', received: 'Abbiamo ricevuto la tua recensione tramite questo link. Grazie!', editLink: 'Modifica o elimina la tua recensione', expiredTitle: 'Questo link è scaduto', expired: "I link per le recensioni valgono 30 giorni dall'invio dell'invito.", cancelled: 'Questo invito non è più valido.', thanksPublished: 'Grazie: la tua recensione è pubblicata.' },
  ja: { receivedTitle: 'レビューを受け付けました', received: 'このリンクからレビューを受け付けました。ありがとうございます。', editLink: 'レビューを変更または削除する', expiredTitle: 'このリンクは期限切れです', expired: 'レビューのリンクは招待の送信から30日間有効です。', cancelled: 'この招待は現在使用されていません。', thanksPublished: 'ありがとうございます。レビューが公開されました。' },
  ko: { receivedTitle: '리뷰가 접수되었습니다', received: '이 링크를 통해 리뷰를 받았습니다. 감사합니다!', editLink: '리뷰 수정 또는 삭제', expiredTitle: '링크가 만료되었습니다', expired: '리뷰 링크는 초대가 발송된 후 30일 동안 유효합니다.', cancelled: '이 초대는 더 이상 사용되지 않습니다.', thanksPublished: '감사합니다. 리뷰가 게시되었습니다.' },
  nb: { receivedTitle: 'Anmeldelse mottatt', received: 'Vi har mottatt anmeldelsen din via denne lenken. Takk!', editLink: 'Endre eller slett anmeldelsen', expiredTitle: 'Denne lenken er utløpt', expired: 'Lenker til anmeldelser virker i 30 dager etter at invitasjonen ble sendt.', cancelled: 'Denne invitasjonen er ikke lenger i bruk.', thanksPublished: 'Takk: anmeldelsen din er publisert.' },
  nl: { receivedTitle: 'Review ontvangen', received: 'We hebben je review via deze link ontvangen. Bedankt!', editLink: 'Je review wijzigen of verwijderen', expiredTitle: 'Deze link is verlopen', expired: 'Reviewlinks werken 30 dagen nadat de uitnodiging is verstuurd.', cancelled: 'Deze uitnodiging is niet meer in gebruik.', thanksPublished: 'Bedankt: je review is gepubliceerd.' },
  pl: { receivedTitle: 'Opinia otrzymana', received: 'Otrzymaliśmy Twoją opinię przez ten link. Dziękujemy!', editLink: 'Zmień lub usuń swoją opinię', expiredTitle: 'Ten link wygasł', expired: 'Linki do opinii działają 30 dni od wysłania zaproszenia.', cancelled: 'To zaproszenie nie jest już aktualne.', thanksPublished: 'Dziękujemy: Twoja opinia została opublikowana.' },
  pt: { receivedTitle: 'Avaliação recebida', received: 'Recebemos a sua avaliação por este link. Obrigado!', editLink: 'Alterar ou eliminar a sua avaliação', expiredTitle: 'Este link expirou', expired: 'Os links de avaliação funcionam 30 dias após o envio do convite.', cancelled: 'Este convite já não está em uso.', thanksPublished: 'Obrigado: a sua avaliação foi publicada.' },
  ru: { receivedTitle: 'Отзыв получен', received: 'Мы получили ваш отзыв по этой ссылке. Спасибо!', editLink: 'Изменить или удалить отзыв', expiredTitle: 'Срок действия ссылки истёк', expired: 'Ссылки для отзыва действуют 30 дней после отправки приглашения.', cancelled: 'Это приглашение больше не действует.', thanksPublished: 'Спасибо: ваш отзыв опубликован.' },
  sv: { receivedTitle: 'Recension mottagen', received: 'Vi har tagit emot din recension via den här länken. Tack!', editLink: 'Ändra eller ta bort din recension', expiredTitle: 'Länken har gått ut', expired: 'Länkar till recensioner fungerar i 30 dagar efter att inbjudan skickades.', cancelled: 'Den här inbjudan används inte längre.', thanksPublished: 'Tack: din recension är publicerad.' },
  tr: { receivedTitle: 'Değerlendirme alındı', received: 'Değerlendirmenizi bu bağlantı üzerinden aldık. Teşekkürler!', editLink: 'Değerlendirmenizi değiştirin veya silin', expiredTitle: 'Bu bağlantının süresi doldu', expired: 'Değerlendirme bağlantıları davet gönderildikten sonra 30 gün geçerlidir.', cancelled: 'Bu davet artık geçerli değil.', thanksPublished: 'Teşekkürler: değerlendirmeniz yayımlandı.' },
  uk: { receivedTitle: 'Відгук отримано', received: 'Ми отримали ваш відгук за цим посиланням. Дякуємо!', editLink: 'Змінити або видалити відгук', expiredTitle: 'Термін дії посилання минув', expired: 'Посилання для відгуку діють 30 днів після надсилання запрошення.', cancelled: 'Це запрошення більше не діє.', thanksPublished: 'Дякуємо: ваш відгук опубліковано.' },
  zh: { receivedTitle: '已收到评价', received: '我们已通过此链接收到您的评价。谢谢！', editLink: '修改或删除您的评价', expiredTitle: '此链接已过期', expired: '评价链接在邀请发送后 30 天内有效。', cancelled: '此邀请已停用。', thanksPublished: '谢谢：您的评价已发布。' },
};
