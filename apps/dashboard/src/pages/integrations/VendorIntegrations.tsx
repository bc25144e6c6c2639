import { Button, Group, Skeleton, Stack, Text, Title } from '@mantine/core';
import { IconPlugConnected } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { ModeBadge } from '../../components/ModeBadge.tsx';
import type { Mode } from '../../lib/search.ts';
import { trpc } from '../../trpc.ts';
import { ConnectOdooModal } from './ConnectOdooModal.tsx';
import { ConnectSquareModal } from './ConnectSquareModal.tsx';
import { VendorIntegrationCard } from './VendorIntegrationCard.tsx';
import { VendorSetupGuide } from './VendorSetupGuide.tsx';

type Props = { establishmentId: string; mode: Mode; manage: boolean };

/**
 * The Integrations page's "Square and Odoo" section: the establishment's connections of the mode
 * chosen, each a card; a connect button for each vendor not connected yet, for those who may; the
 * step-by-step setup of each vendor.
 * Active connections come first, then revoked ones (kept so the history is readable), newest first.
 */
export function VendorIntegrations({ establishmentId, mode, manage }: Props) {
  const { t } = useTranslation('integrations');
  const livemode = mode === 'live';
  const scope = { establishment_id: establishmentId, livemode };
  const [connecting, setConnecting] = useState<'square' | 'odoo' | null>(null);
  const list = useQuery(trpc.integrations.list.queryOptions(scope));
  const integrations = [...(list.data ?? [])].sort((a, b) => Number(a.status === 'revoked') - Number(b.status === 'revoked'));
  // One active connection of each vendor per establishment and mode (the server refuses a second):
  // a vendor already connected is changed, rotated or revoked from its card.
  const connected = new Set(integrations.filter((i) => i.status === 'active').map((i) => i.kind));
  const canConnect = (kind: 'square' | 'odoo') => manage && list.data !== undefined && !connected.has(kind);

  return (
    <Stack gap="md" component="section" aria-labelledby="vendors-title">
      <Group justify="space-between" align="flex-start" gap="sm">
        <Stack gap={4} maw={720}>
          <Group gap="sm">
            <Title order={2} size="h3" id="vendors-title">
              {t('integrations.vendors.title')}
            </Title>
            <ModeBadge mode={mode} />
          </Group>
          <Text size="sm" c="dimmed">
            {t('integrations.vendors.description')}
          </Text>
        </Stack>
        {(canConnect('square') || canConnect('odoo')) && (
          <Group gap="xs">
            {canConnect('square') && (
              <Button leftSection={<IconPlugConnected size={16} aria-hidden />} onClick={() => setConnecting('square')}>
                {t('integrations.vendors.square.connect')}
              </Button>
            )}
            {canConnect('odoo') && (
              <Button leftSection={<IconPlugConnected size={16} aria-hidden />} onClick={() => setConnecting('odoo')}>
                {t('integrations.vendors.odoo.connect')}
              </Button>
            )}
          </Group>
        )}
      </Group>

      {list.error ? (
        <ErrorAlert error={list.error} />
      ) : !list.data ? (
        <Skeleton h={160} />
      ) : integrations.length === 0 ? (
        <Text size="sm" c="dimmed">
          {t('integrations.vendors.empty')}
        </Text>
      ) : (
        integrations.map((i) => <VendorIntegrationCard key={i.id} integration={i} scope={scope} manage={manage} />)
      )}

      <VendorSetupGuide />

      {connecting === 'square' && (
        <ConnectSquareModal onClose={() => setConnecting(null)} establishmentId={establishmentId} livemode={livemode} />
      )}
      {connecting === 'odoo' && (
        <ConnectOdooModal onClose={() => setConnecting(null)} establishmentId={establishmentId} livemode={livemode} />
      )}
    </Stack>
  );
}
