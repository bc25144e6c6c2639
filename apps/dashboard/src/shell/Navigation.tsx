import { NavLink, Stack } from '@mantine/core';
import { IconHistory, IconKey, IconPlugConnected, IconUsers } from '@tabler/icons-react';
import { Link, useMatchRoute } from '@tanstack/react-router';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { can } from '../lib/permissions.ts';
import { useScope } from '../lib/scope.ts';

type Item = { to: '/keys' | '/integrations' | '/team' | '/audit'; label: string; icon: ReactNode };

export function Navigation({ onNavigate }: { onNavigate: () => void }) {
  const { t } = useTranslation();
  const { me } = useScope();
  const matchRoute = useMatchRoute();
  const items: Item[] = [
    ...(can.viewKeys(me.role) ? [{ to: '/keys' as const, label: t('nav.keys'), icon: <IconKey size={18} aria-hidden /> }] : []),
    { to: '/integrations', label: t('nav.integrations'), icon: <IconPlugConnected size={18} aria-hidden /> },
    { to: '/team', label: t('nav.team'), icon: <IconUsers size={18} aria-hidden /> },
  ];
  if (can.viewAudit(me.role)) items.push({ to: '/audit', label: t('nav.audit'), icon: <IconHistory size={18} aria-hidden /> });

  return (
    <Stack gap={2}>
      {items.map((item) => (
        <NavLink
          key={item.to}
          component={Link}
          to={item.to}
          label={item.label}
          leftSection={item.icon}
          variant="light"
          active={Boolean(matchRoute({ to: item.to, fuzzy: true }))}
          onClick={onNavigate}
        />
      ))}
    </Stack>
  );
}
