/** The sign-in page's messages, picked from src/i18n/*.json at build time (vite.config.ts). */
declare module 'virtual:sign-in-messages' {
  const messages: Record<'es' | 'en', Record<string, unknown>>;
  export default messages;
}
