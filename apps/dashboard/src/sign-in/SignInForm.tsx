import { Alert, Button, Group, PasswordInput, Stack, TextInput } from '@mantine/core';
import { type FormEvent, type ReactNode, useState } from 'react';
import type { SignInWords } from './words.ts';

export type SignInValues = { email: string; password: string };

type Props = {
  words: SignInWords;
  /** Sends the values (already checked here); the form shows `pending` and `failure` meanwhile and after. */
  onSubmit: (values: SignInValues) => void;
  pending: boolean;
  /** Why the last attempt failed, in the reader's language. */
  failure: string | null;
  /** The "forgot your password?" link: the app's router link, or a plain link on the sign-in page. */
  forgot: ReactNode;
};

/** The same check as Mantine's `isEmail`, which the app's other forms use. */
const EMAIL = /^[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\.[a-zA-Z]{2,}$/;

type Errors = { email?: string | undefined; password?: string | undefined };

/**
 * The sign-in form, shared by the sign-in page (src/sign-in/page.tsx, the light page a browser
 * without a session opens) and the app's own sign-in route (after signing out, or when a session
 * ends inside the app). Plain React state rather than @mantine/form, which lives in the app's
 * chunk: the sign-in page must not download it. Checked on submit; a field's error goes as soon as
 * it is edited, as @mantine/form does.
 */
export function SignInForm({ words, onSubmit, pending, failure, forgot }: Props) {
  const [values, setValues] = useState<SignInValues>({ email: '', password: '' });
  const [errors, setErrors] = useState<Errors>({});
  const edit = (field: keyof SignInValues) => (event: { currentTarget: { value: string } }) => {
    const value = event.currentTarget.value;
    setValues((v) => ({ ...v, [field]: value }));
    setErrors((e) => ({ ...e, [field]: undefined }));
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const found: Errors = {
      email: EMAIL.test(values.email) ? undefined : words.emailInvalid,
      password: values.password ? undefined : words.required,
    };
    setErrors(found);
    if (!found.email && !found.password) onSubmit(values);
  };
  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="md">
        {failure && (
          <Alert color="red" variant="light" role="alert">
            {failure}
          </Alert>
        )}
        <TextInput
          label={words.email}
          type="email"
          autoComplete="username"
          required
          withAsterisk={false}
          autoFocus
          value={values.email}
          onChange={edit('email')}
          error={errors.email}
        />
        <PasswordInput
          label={words.password}
          autoComplete="current-password"
          required
          withAsterisk={false}
          visibilityToggleButtonProps={{ 'aria-label': words.togglePassword }}
          value={values.password}
          onChange={edit('password')}
          error={errors.password}
        />
        <Group justify="space-between">
          {forgot}
          <Button type="submit" loading={pending}>
            {words.submit}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
