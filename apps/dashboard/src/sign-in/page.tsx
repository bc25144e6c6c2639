import '../mantine-styles.ts';
import { Anchor, MantineProvider, NativeSelect } from '@mantine/core';
import { StrictMode, useEffect, useMemo, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { AuthFrame } from '../components/AuthFrame.tsx';
import { applyLanguage, detectLanguage, LANGUAGES, type Language, rememberLanguage } from '../i18n/language.ts';
import { cssVariablesResolver, themeWithCloseLabel } from '../theme.ts';
import { destination, signInAddress } from './address.ts';
import { signIn } from './client.ts';
import { lookup } from './messages.ts';
import { SignInForm, type SignInValues } from './SignInForm.tsx';
import { signInWords } from './words.ts';

/**
 * The sign-in page (sign-in.html): what a browser without a session opens, at /dashboard/sign-in,
 * the app's address or any of its pages that have a first frame (the server sends this page, with
 * the sign-in page's frame, for those; other addresses get the app, whose router sends such a
 * browser to its own sign-in route).
 * An entry of the dashboard's build of its own, with the app's theme, form and words but none of
 * its router, query cache, tRPC client or message loader: on a phone's first visit it downloads
 * React, Mantine's few components and this page, about half of what the app's first load is. Once
 * signed in, the browser loads the app at the page it asked for (`?redirect=`), which the app's
 * own sign-in route would have shown; after signing out, or when a session ends in the app, the
 * app's own sign-in route shows the same form without a page load.
 */
const moved = signInAddress(location.pathname, location.search, location.hash);
if (moved) history.replaceState(null, '', moved);

const container = document.getElementById('root');
if (!container) throw new Error('sign-in.html has no #root element');

/** What the server's refusal says to the reader: wrong credentials and throttling in the form's words, anything else by its code. */
function failureText(language: Language, code: string, words: ReturnType<typeof signInWords>): string {
  if (code === 'unauthorized' || code === 'validation_error') return words.invalid;
  if (code === 'rate_limited') return words.tooMany;
  const known = lookup(language, `errors.codes.${code}`);
  return known === `errors.codes.${code}` ? lookup(language, 'errors.codes.unknown') : known;
}

function SignInScreen() {
  const [language, setLanguage] = useState<Language>(detectLanguage);
  const [pending, setPending] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const words = useMemo(() => signInWords((key) => lookup(language, key)), [language]);
  const theme = useMemo(() => themeWithCloseLabel(lookup(language, 'common.close')), [language]);
  const appName = lookup(language, 'app.name');
  useEffect(() => {
    applyLanguage(language);
    document.title = lookup(language, 'app.pageTitle', { page: words.title, app: appName });
  }, [language, words, appName]);

  const submit = async (values: SignInValues) => {
    setPending(true);
    setFailure(null);
    const result = await signIn(values);
    // Signed in: the button stays busy while the app loads.
    if (result.ok) location.replace(destination(location.search));
    else {
      setPending(false);
      setFailure(result.code);
    }
  };

  return (
    <MantineProvider theme={theme} defaultColorScheme="light" cssVariablesResolver={cssVariablesResolver}>
      <AuthFrame
        appName={appName}
        title={words.title}
        description={words.description}
        corner={
          <NativeSelect
            aria-label={lookup(language, 'language.label')}
            data={LANGUAGES.map((value) => ({ value, label: lookup(language, `language.names.${value}`) }))}
            value={language}
            onChange={(event) => {
              const chosen = event.currentTarget.value as Language;
              rememberLanguage(chosen);
              setLanguage(chosen);
            }}
            size="xs"
            w={110}
          />
        }
      >
        <SignInForm
          words={words}
          onSubmit={(values) => void submit(values)}
          pending={pending}
          failure={failure === null ? null : failureText(language, failure, words)}
          forgot={
            <Anchor href="/dashboard/forgot-password" size="sm">
              {words.forgot}
            </Anchor>
          }
        />
      </AuthFrame>
    </MantineProvider>
  );
}

createRoot(container).render(
  <StrictMode>
    <SignInScreen />
  </StrictMode>,
);
