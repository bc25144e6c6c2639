import { Button, Divider, Menu, Stack, Text } from '@mantine/core';
import { IconChevronDown, IconLogout, IconLogout2, IconUserCircle } from '@tabler/icons-react';
import { useMutation } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { useConfirm } from '../components/confirm.tsx';
import { LanguageSwitcher } from '../components/LanguageSwitcher.tsx';
import { useScope } from '../lib/scope.ts';
import { useLeaveApp } from '../lib/session.ts';
import { trpc } from '../trpc.ts';

/** Signing out here, or everywhere (every session of the account, after a confirmation). */
function useSignOut() {
  const { t } = useTranslation();
  const confirm = useConfirm();
  const leaveApp = useLeaveApp();
  const signOut = useMutation(trpc.accounts.signOut.mutationOptions({ onSettled: () => leaveApp() }));
  const signOutEverywhere = useMutation(trpc.accounts.signOutEverywhere.mutationOptions({ onSuccess: () => leaveApp() }));
  return {
    signOut: () => signOut.mutate(),
    signingOut: signOut.isPending,
    signOutEverywhere: () =>
      confirm({
        title: t('shell.signOutEverywhere'),
        message: t('shell.signOutEverywhereConfirm'),
        confirmLabel: t('shell.signOutEverywhere'),
        onConfirm: () => signOutEverywhere.mutate(),
      }),
  };
}

/** The signed-in user in the header (wide screens): a menu to sign out here or everywhere. */
export function UserMenu() {
  const { t } = useTranslation();
  const { me } = useScope();
  const actions = useSignOut();

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

/**
 * The same, at the foot of the navigation drawer (phones, where the header has room only for the
 * menu button, the name and the mode): who is signed in, the language, and signing out.
 */
export function UserPanel() {
  const { t } = useTranslation();
  const { me } = useScope();
  const actions = useSignOut();
  return (
    <Stack gap="xs" component="section" aria-label={t('shell.account')}>
      <Divider label={t('shell.account')} labelPosition="left" />
      <Stack gap={0}>
        <Text size="sm" fw={600}>
          {me.user.name}
        </Text>
        <Text size="xs" c="dimmed">
          {me.user.email}
        </Text>
      </Stack>
      <LanguageSwitcher account />
      <Button
        variant="default"
        justify="flex-start"
        leftSection={<IconLogout size={16} aria-hidden />}
        onClick={actions.signOut}
        loading={actions.signingOut}
      >
        {t('shell.signOut')}
      </Button>
      <Button
        variant="subtle"
        color="red"
        justify="flex-start"
        leftSection={<IconLogout2 size={16} aria-hidden />}
        onClick={actions.signOutEverywhere}
      >
        {t('shell.signOutEverywhere')}
      </Button>
    </Stack>
  );
}
