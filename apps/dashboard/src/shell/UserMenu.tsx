import { Button, Menu } from '@mantine/core';
import { IconChevronDown, IconLogout, IconLogout2, IconUserCircle } from '@tabler/icons-react';
import { useMutation } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { useConfirm } from '../components/confirm.tsx';
import { useScope } from '../lib/scope.ts';
import { useLeaveApp } from '../lib/session.ts';
import { trpc } from '../trpc.ts';

/** The signed-in user: sign out here, or everywhere (every session of the account). */
export function UserMenu() {
  const { t } = useTranslation();
  const { me } = useScope();
  const confirm = useConfirm();
  const leaveApp = useLeaveApp();
  const signOut = useMutation(trpc.auth.signOut.mutationOptions({ onSettled: () => leaveApp() }));
  const signOutEverywhere = useMutation(trpc.auth.signOutEverywhere.mutationOptions({ onSuccess: () => leaveApp() }));

  return (
    <Menu position="bottom-end" withinPortal>
      <Menu.Target>
        <Button
          variant="subtle"
          color="gray"
          leftSection={<IconUserCircle size={20} aria-hidden />}
          rightSection={<IconChevronDown size={14} aria-hidden />}
          aria-label={t('shell.userMenu', { name: me.user.name })}
        >
          {me.user.name}
        </Button>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Label>{me.user.email}</Menu.Label>
        <Menu.Item leftSection={<IconLogout size={16} aria-hidden />} onClick={() => signOut.mutate()}>
          {t('shell.signOut')}
        </Menu.Item>
        <Menu.Item
          color="red"
          leftSection={<IconLogout2 size={16} aria-hidden />}
          onClick={() =>
            confirm({
              title: t('shell.signOutEverywhere'),
              message: t('shell.signOutEverywhereConfirm'),
              confirmLabel: t('shell.signOutEverywhere'),
              onConfirm: () => signOutEverywhere.mutate(),
            })
          }
        >
          {t('shell.signOutEverywhere')}
        </Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
}
