import { useMutation } from '@tanstack/react-query';
import { getRouteApi } from '@tanstack/react-router';
import { useTranslation } from 'react-i18next';
import { AuthLayout } from '../../components/AuthLayout.tsx';
import { AnchorLink } from '../../components/links.tsx';
import { errorInfo, errorText } from '../../lib/errors.ts';
import { useEnterApp } from '../../lib/session.ts';
import { SignInForm } from '../../sign-in/SignInForm.tsx';
import { signInWords } from '../../sign-in/words.ts';
import { trpc } from '../../trpc.ts';

const route = getRouteApi('/sign-in');

/**
 * The app's own sign-in route: where the app goes after signing out or when a session ends. A
 * browser that opens the dashboard without a session gets the sign-in page instead (sign-in.html,
 * src/sign-in/page.tsx), the same form without the app's code. In the first bundle: it imports
 * nothing heavy (no @merma/schema, whose zod the other pages load).
 */
export function SignInPage() {
  const { t, i18n } = useTranslation();
  const { redirect } = route.useSearch();
  const enterApp = useEnterApp();
  const words = signInWords((key) => t(key));
  const signIn = useMutation(
    trpc.accounts.signIn.mutationOptions({
      meta: { inlineError: true },
      onSuccess: (me) => enterApp(me, redirect),
    }),
  );

  const failure = signIn.error ? errorInfo(signIn.error).code : null;
  const failureText =
    failure === 'unauthorized' || failure === 'validation_error'
      ? words.invalid
      : failure === 'rate_limited'
        ? words.tooMany
        : signIn.error
          ? errorText(i18n, signIn.error)
          : null;

  return (
    <AuthLayout title={words.title} description={words.description}>
      <SignInForm
        words={words}
        onSubmit={(values) => signIn.mutate(values)}
        pending={signIn.isPending}
        failure={failureText}
        forgot={
          <AnchorLink to="/forgot-password" size="sm">
            {words.forgot}
          </AnchorLink>
        }
      />
    </AuthLayout>
  );
}
