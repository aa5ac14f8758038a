/**
 * "Response from {o}" ({o} the organization's name), which signs a reply
 * under its review, in every language the widget speaks (English included),
 * keyed like the catalogs (catalogs.ts). Not in the catalogs: a page whose
 * widgets show no reply (every badge page, most others) does not load these
 * words; the reply chunk (reply.ts, loaded only for data with a reply)
 * carries them all, and picks the catalog's language.
 */
export const RESPONSE_FROM: Record<string, string> = {
  en: 'Response from {o}',
  ar: 'رد {o}',
  cs: 'Odpověď od {o}',
  da: 'Svar fra {o}',
  de: 'Antwort von {o}',
  el: 'Απάντηση: {o}',
  es: 'Respuesta de {o}',
  fi: 'Vastaus: {o}',
  fr: 'Réponse de {o}',
  he: 'תגובה מאת {o}',
  hu: '{o} válasza',
  id: 'Tanggapan dari {o}',
  it: 'Risposta di {o}',
  ja: '{o}からの返信',
  ko: '{o}의 답변',
  nb: 'Svar fra {o}',
  nl: 'Reactie van {o}',
  pl: 'Odpowiedź: {o}',
  pt: 'Resposta de {o}',
  ru: 'Ответ: {o}',
  sv: 'Svar från {o}',
  tr: '{o} yanıtı',
  uk: 'Відповідь: {o}',
  zh: '{o} 的回复',
};
