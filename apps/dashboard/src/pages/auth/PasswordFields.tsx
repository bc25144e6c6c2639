import { PasswordInput } from '@mantine/core';
import type { UseFormReturnType } from '@mantine/form';
import { MIN_PASSWORD_LENGTH, Password } from '@merma/schema/dashboard';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { rule } from '../../lib/validation.ts';

export type PasswordValues = { password: string; confirm: string };

/** Form rules of a new password: the server's length rule, and the two entries must match. */
export function passwordRules(t: TFunction) {
  return {
    password: rule(Password, t('validation.passwordLength', { min: MIN_PASSWORD_LENGTH })),
    confirm: (value: string, values: PasswordValues) => (value === values.password ? null : t('validation.passwordsDiffer')),
  };
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
