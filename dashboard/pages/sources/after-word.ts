/**
 * A label that follows another word, as in the Reconnect dialog's field ("New"
 * + the credential's label): its first word lower-cased when it is an ordinary
 * capitalized word ("New page access token"), kept when it is an acronym or a
 * name ("New API key", never "New aPI key"; "OAuth", "G2").
 */
export function afterWord(word: string, label: string): string {
  const first = /^[A-Za-z0-9]+/.exec(label)?.[0] ?? '';
  return `${word} ${/^[A-Z][a-z]*$/.test(first) ? label.charAt(0).toLowerCase() + label.slice(1) : label}`;
}
