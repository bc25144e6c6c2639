import { Alert, List, Text } from '@mantine/core';
import type { DashboardDonationAgreement } from '@merma/schema/dashboard';
import { IconAlertTriangle } from '@tabler/icons-react';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useFormat } from '../lib/format.ts';

/**
 * Donation agreements in force that end within 30 days (`expires_in_days`, counted by the server in
 * Spain's calendar), soonest first: on the overview, for the establishment shown, and at the top of
 * the donations page, for the organisation. Nothing when there are none. Its words are the Donations
 * page's (the `donations` namespace, off the first load): it waits for them (Suspense) when they
 * are not loaded yet.
 */
export function ExpiringAgreementsAlert({
  agreements,
  children,
}: {
  agreements: readonly DashboardDonationAgreement[];
  children?: ReactNode;
}) {
  const { t } = useTranslation('donations');
  const format = useFormat();
  const ending = agreements
    .filter((a): a is DashboardDonationAgreement & { expires_in_days: number } => a.expires_in_days !== null)
    .sort((x, y) => x.expires_in_days - y.expires_in_days);
  if (ending.length === 0) return null;
  return (
    <Alert
      color="orange"
      variant="light"
      icon={<IconAlertTriangle aria-hidden />}
      title={t('donations.expiring.title', { count: ending.length })}
      data-testid="expiring-agreements"
    >
      <List size="sm" spacing={2}>
        {ending.map((a) => (
          <List.Item key={a.id}>
            {a.expires_in_days === 0
              ? t('donations.expiring.itemToday', { entity: a.entity_name, date: format.date(a.valid_until) })
              : t('donations.expiring.item', { entity: a.entity_name, date: format.date(a.valid_until), count: a.expires_in_days })}
          </List.Item>
        ))}
      </List>
      <Text size="sm" mt="xs">
        {t('donations.expiring.hint')}
      </Text>
      {children}
    </Alert>
  );
}
