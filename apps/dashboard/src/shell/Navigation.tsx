import { Divider, NavLink, Stack } from '@mantine/core';
import { IconDeviceTablet, IconHistory, IconKey } from '@tabler/icons-react';
import { Link, useMatchRoute } from '@tanstack/react-router';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { can } from '../lib/permissions.ts';
import { useScope } from '../lib/scope.ts';
import { EVERY_ROLE_SETTINGS, WASTE_PAGES } from './navItems.ts';

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
  const item = ({ to, label, Icon }: (typeof WASTE_PAGES)[number] | (typeof EVERY_ROLE_SETTINGS)[number]): Item => ({
    to,
    label: t(label),
    icon: <Icon size={18} aria-hidden />,
  });
  const waste = WASTE_PAGES.map(item);
  const [integrations, team] = EVERY_ROLE_SETTINGS.map(item);
  const items: Item[] = [
    ...(can.viewKeys(me.role) ? [{ to: '/keys' as const, label: t('nav.keys'), icon: <IconKey size={18} aria-hidden /> }] : []),
    ...(can.manageTeam(me.role)
      ? [{ to: '/stations' as const, label: t('nav.stations'), icon: <IconDeviceTablet size={18} aria-hidden /> }]
      : []),
    integrations as Item,
    team as Item,
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
