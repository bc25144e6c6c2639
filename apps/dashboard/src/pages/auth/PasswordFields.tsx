import { PasswordInput } from '@mantine/core';
import type { UseFormReturnType } from '@mantine/form';
import { MIN_PASSWORD_LENGTH, Password } from '@merma/schema/dashboard';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { errorInfo } from '../../lib/errors.ts';
import { rule } from '../../lib/validation.ts';

export type PasswordValues = { password: string; confirm: string };

/** Form rules of a new password: the server's length rule, and the two entries must match. */
export function passwordRules(t: TFunction) {
  return {
    password: rule(Password, t('validation.passwordLength', { min: MIN_PASSWORD_LENGTH })),
    confirm: (value: string, values: PasswordValues) => (value === values.password ? null : t('validation.passwordsDiffer')),
  };
}

/**
 * The server refused the new password itself (too easy to guess, or it contains the e-mail): a
 * validation error naming `password`. The page shows it on the field, in the page's language.
 */
export function refusedPassword(error: unknown): boolean {
  const info = errorInfo(error);
  return info.code === 'validation_error' && info.details.some((d) => d.path === 'password');
}

/** Puts the server's refusal of the password on the field (the call's onError). */
export function showRefusedPassword<T extends PasswordValues>(form: UseFormReturnType<T>, t: TFunction, error: unknown) {
  if (refusedPassword(error)) form.setFieldError('password', t('validation.passwordGuessable'));
}

/** "New password" and "Repeat it", for reset and invitation pages. */
export function PasswordFields<T extends PasswordValues>({ form }: { form: UseFormReturnType<T> }) {
  const { t } = useTranslation();
  const toggle = { 'aria-label': t('auth.fields.togglePassword') };
  return (
    <>
      <PasswordInput
        label={t('auth.fields.newPassword')}
        description={t('auth.fields.passwordHint', { min: MIN_PASSWORD_LENGTH })}
        autoComplete="new-password"
        required
        visibilityToggleButtonProps={toggle}
        {...form.getInputProps('password')}
      />
      <PasswordInput
        label={t('auth.fields.confirmPassword')}
        autoComplete="new-password"
        required
        visibilityToggleButtonProps={toggle}
        {...form.getInputProps('confirm')}
      />
    </>
  );
}
