import messages from 'virtual:sign-in-messages';
import type { Language } from '../i18n/language.ts';

/**
 * The sign-in page's messages: the parts of the dashboard's message files (src/i18n/es.json and
 * en.json) that words.ts names, both languages (a couple of kilobytes; a switch needs no network),
 * picked at build time by vite.config.ts (`virtual:sign-in-messages`) so that the page does not
 * carry the other 40 kB of each file.
 */

/** A message of the sign-in page by its key (`auth.signIn.title`), `{{name}}` filled from `values`; the key itself if missing. */
export function lookup(language: Language, key: string, values: Record<string, string> = {}): string {
  let found: unknown = messages[language];
  for (const part of key.split('.')) found = (found as Record<string, unknown> | undefined)?.[part];
  if (typeof found !== 'string') return key;
  return found.replace(/\{\{(\w+)\}\}/g, (whole, name: string) => values[name] ?? whole);
}
