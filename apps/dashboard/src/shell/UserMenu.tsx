import { Menu } from '@mantine/core';
import { IconLogout, IconLogout2 } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { useScope } from '../lib/scope.ts';
import { AccountButton } from './AccountButton.tsx';
import { useSignOut } from './sign-out.ts';

/**
 * The signed-in user in the header (wide screens): a menu to sign out here or everywhere. A chunk
 * of its own, loaded by wide screens only: its popover's positioning code (Floating UI) is about a
 * fifth of what a phone would otherwise download for a page, and phones show the account in the
 * navigation drawer instead (UserPanel.tsx).
 */
export function UserMenu({ defaultOpened = false }: { defaultOpened?: boolean }) {
  const { t } = useTranslation();
  const { me } = useScope();
  const actions = useSignOut();

  return (
    <Menu position="bottom-end" withinPortal defaultOpened={defaultOpened}>
      <Menu.Target>
        <AccountButton />
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Label>{me.user.email}</Menu.Label>
        <Menu.Item leftSection={<IconLogout size={16} aria-hidden />} onClick={actions.signOut}>
          {t('shell.signOut')}
        </Menu.Item>
        <Menu.Item color="red" leftSection={<IconLogout2 size={16} aria-hidden />} onClick={actions.signOutEverywhere}>
          {t('shell.signOutEverywhere')}
        </Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
}
