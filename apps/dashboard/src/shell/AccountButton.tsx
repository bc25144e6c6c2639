import { Button, type ButtonProps } from '@mantine/core';
import { IconChevronDown, IconUserCircle } from '@tabler/icons-react';
import { forwardRef } from 'react';
import { useTranslation } from 'react-i18next';
import { useScope } from '../lib/scope.ts';

/**
 * The header's account button (wide screens): the signed-in user's name, which opens the account
 * menu (UserMenu.tsx). Shown alone while that menu's code loads, so the header has its final
 * layout from the first paint.
 */
export const AccountButton = forwardRef<HTMLButtonElement, ButtonProps & { onClick?: () => void }>(function AccountButton(props, ref) {
  const { t } = useTranslation();
  const { me } = useScope();
  return (
    <Button
      ref={ref}
      variant="subtle"
      color="gray"
      leftSection={<IconUserCircle size={20} aria-hidden />}
      rightSection={<IconChevronDown size={14} aria-hidden />}
      aria-label={t('shell.userMenu', { name: me.user.name })}
      {...props}
    >
      {me.user.name}
    </Button>
  );
});
