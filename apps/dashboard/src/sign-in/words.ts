/** The message keys of the sign-in form's words, in the dashboard's message files (src/i18n/*.json). */
export const SIGN_IN_KEYS = {
  title: 'auth.signIn.title',
  description: 'auth.signIn.description',
  email: 'auth.fields.email',
  password: 'auth.fields.password',
  togglePassword: 'auth.fields.togglePassword',
  submit: 'auth.signIn.submit',
  forgot: 'auth.signIn.forgot',
  invalid: 'auth.signIn.invalid',
  tooMany: 'auth.signIn.tooMany',
  emailInvalid: 'validation.email',
  required: 'validation.required',
} as const;

type SignInKey = (typeof SIGN_IN_KEYS)[keyof typeof SIGN_IN_KEYS];
export type SignInWords = Record<keyof typeof SIGN_IN_KEYS, string>;

/** The form's words through a message lookup: the app's i18next `t`, or the sign-in page's `lookup`. */
export function signInWords(t: (key: SignInKey) => string): SignInWords {
  return Object.fromEntries(Object.entries(SIGN_IN_KEYS).map(([word, key]) => [word, t(key)])) as SignInWords;
}

/**
 * What else the sign-in page says (src/sign-in/page.tsx): its title's pattern, the theme's close
 * button, the language switch and the server's refusals by code. A key names a message or a group.
 */
export const PAGE_KEYS = ['app.name', 'app.pageTitle', 'common.close', 'language.label', 'language.names', 'errors.codes'] as const;
