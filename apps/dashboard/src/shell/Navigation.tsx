import { Divider, NavLink, Stack } from '@mantine/core';
import {
  IconBaguette,
  IconChartBar,
  IconClock,
  IconDeviceTablet,
  IconFileText,
  IconHeartHandshake,
  IconHistory,
  IconKey,
  IconList,
  IconPlugConnected,
  IconTrendingUp,
  IconUsers,
} from '@tabler/icons-react';
import { Link, useMatchRoute } from '@tanstack/react-router';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { can } from '../lib/permissions.ts';
import { useScope } from '../lib/scope.ts';

type Item = {
  to:
    | '/overview'
    | '/records'
    | '/forecast'
    | '/plan'
    | '/shifts'
    | '/products'
    | '/donations'
    | '/keys'
    | '/stations'
    | '/integrations'
    | '/team'
    | '/audit';
  label: string;
  icon: ReactNode;
};

export function Navigation({ onNavigate }: { onNavigate: () => void }) {
  const { t } = useTranslation();
  const { me } = useScope();
  const matchRoute = useMatchRoute();
  // What the kitchen looks at, then what the people who connect systems and run the account use.
  const waste: Item[] = [
    { to: '/overview', label: t('nav.overview'), icon: <IconChartBar size={18} aria-hidden /> },
    { to: '/records', label: t('nav.records'), icon: <IconList size={18} aria-hidden /> },
    { to: '/forecast', label: t('nav.forecast'), icon: <IconTrendingUp size={18} aria-hidden /> },
    { to: '/plan', label: t('nav.plan'), icon: <IconFileText size={18} aria-hidden /> },
    { to: '/shifts', label: t('nav.shifts'), icon: <IconClock size={18} aria-hidden /> },
    { to: '/products', label: t('nav.products'), icon: <IconBaguette size={18} aria-hidden /> },
    { to: '/donations', label: t('nav.donations'), icon: <IconHeartHandshake size={18} aria-hidden /> },
  ];
  const items: Item[] = [
    ...(can.viewKeys(me.role) ? [{ to: '/keys' as const, label: t('nav.keys'), icon: <IconKey size={18} aria-hidden /> }] : []),
    ...(can.manageTeam(me.role)
      ? [{ to: '/stations' as const, label: t('nav.stations'), icon: <IconDeviceTablet size={18} aria-hidden /> }]
      : []),
    { to: '/integrations', label: t('nav.integrations'), icon: <IconPlugConnected size={18} aria-hidden /> },
    { to: '/team', label: t('nav.team'), icon: <IconUsers size={18} aria-hidden /> },
  ];
  if (can.viewAudit(me.role)) items.push({ to: '/audit', label: t('nav.audit'), icon: <IconHistory size={18} aria-hidden /> });

  const link = (item: Item) => (
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
  );
  return (
    <Stack gap={2}>
      {waste.map(link)}
      <Divider my="sm" label={t('nav.settings')} labelPosition="left" />
      {items.map(link)}
    </Stack>
  );
}
