import { Button, Divider, Stack, Text } from '@mantine/core';
import { IconLogout, IconLogout2 } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { LanguageSwitcher } from '../components/LanguageSwitcher.tsx';
import { useScope } from '../lib/scope.ts';
import { useSignOut } from './sign-out.ts';

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
