import { ActionIcon, Alert, Badge, Button, Card, CopyButton, Group, List, Stack, Text, TextInput, Title, Tooltip } from '@mantine/core';
import type { Integration } from '@merma/schema/dashboard';
import { IconAlertCircle, IconCheck, IconCircleCheck, IconCircleDashed, IconCopy, IconPencil, IconRefresh } from '@tabler/icons-react';
import { useMutation } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ConfirmButton } from '../../components/confirm.tsx';
import { useFormat } from '../../lib/format.ts';
import { queryClient, trpc } from '../../trpc.ts';
import { EditIntegrationModal } from './EditIntegrationModal.tsx';
import { RefusedLines } from './RefusedLines.tsx';
import { RotateIntegrationModal } from './RotateIntegrationModal.tsx';

type Scope = { establishment_id: string; livemode: boolean };

/** A URL to copy into a vendor's console: read-only, with a copy button named for what it copies. */
export function CopyUrl({ label, url, description }: { label: string; url: string; description?: string }) {
  const { t } = useTranslation('integrations');
  const { t: common } = useTranslation();
  const copyLabel = t('integrations.vendors.copyUrl', { label });
  return (
    <Group align="flex-end" gap="xs" wrap="nowrap">
      <TextInput
        label={label}
        description={description}
        value={url}
        readOnly
        flex={1}
        miw={0}
        styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
        onFocus={(event) => event.currentTarget.select()}
      />
      <CopyButton value={url}>
        {({ copied, copy }) => (
          <Tooltip label={copied ? common('common.copied') : copyLabel} withArrow>
            <ActionIcon variant="default" size="lg" onClick={copy} aria-label={copyLabel}>
              {copied ? <IconCheck size={16} aria-hidden /> : <IconCopy size={16} aria-hidden />}
            </ActionIcon>
          </Tooltip>
        )}
      </CopyButton>
    </Group>
  );
}

type CheckState = 'done' | 'missing' | 'optional';

/** One line of the checklist; its state is said in words (the icon is decoration). */
function Check({ state, children }: { state: CheckState; children: ReactNode }) {
  const icon =
    state === 'done' ? (
      <IconCircleCheck size={18} color="var(--mantine-color-teal-8)" aria-hidden />
    ) : state === 'missing' ? (
      <IconAlertCircle size={18} color="var(--mantine-color-orange-9)" aria-hidden />
    ) : (
      <IconCircleDashed size={18} color="var(--mantine-color-gray-7)" aria-hidden />
    );
  return <List.Item icon={icon}>{children}</List.Item>;
}

/** Square's required credentials, both needed before anything is recorded. */
export const squareReady = (i: Integration) => i.signature_key_set && i.api_credential_set;

function SquareChecklist({ integration }: { integration: Integration }) {
  const { t } = useTranslation('integrations');
  const location = integration.settings.location_id;
  return (
    <>
      <Check state={integration.signature_key_set ? 'done' : 'missing'}>
        {integration.signature_key_set
          ? t('integrations.vendors.check.signatureKeySet')
          : t('integrations.vendors.check.signatureKeyMissing')}
      </Check>
      <Check state={integration.api_credential_set ? 'done' : 'missing'}>
        {integration.api_credential_set
          ? t('integrations.vendors.check.accessTokenSet')
          : t('integrations.vendors.check.accessTokenMissing')}
      </Check>
      <Check state={location ? 'done' : 'optional'}>
        {location ? t('integrations.vendors.check.location', { location }) : t('integrations.vendors.check.allLocations')}
      </Check>
    </>
  );
}

function OdooChecklist({ integration }: { integration: Integration }) {
  const { t } = useTranslation('integrations');
  const { url, database, login } = integration.settings;
  const reading = Boolean(url && database && login && integration.api_credential_set);
  return (
    <>
      <Check state="done">{t('integrations.vendors.check.odooUrl')}</Check>
      <Check state={reading ? 'done' : 'optional'}>
        {reading ? t('integrations.vendors.check.odooApiSet', { login, url, database }) : t('integrations.vendors.check.odooApiMissing')}
      </Check>
    </>
  );
}

/**
 * One Square or Odoo integration: its status, the URL to give the vendor, a checklist of what is set
 * and missing, its traffic (last received, last error), and, for those who may, edit, rotate and
 * revoke. A revoked one keeps only its name, dates and status.
 */
export function VendorIntegrationCard({ integration, scope, manage }: { integration: Integration; scope: Scope; manage: boolean }) {
  const { t } = useTranslation('integrations');
  const format = useFormat();
  const [editing, setEditing] = useState(false);
  const [rotating, setRotating] = useState(false);
  const square = integration.kind === 'square';
  const active = integration.status === 'active';
  const titleId = `integration-${integration.id}`;

  const revoke = useMutation(
    trpc.integrations.revoke.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries(trpc.integrations.list.pathFilter()),
    }),
  );

  return (
    <Card withBorder padding="lg" component="article" aria-labelledby={titleId}>
      <Stack gap="md">
        <Group justify="space-between" align="flex-start" gap="sm">
          <Stack gap={4} miw={0}>
            <Group gap="xs">
              <Title order={3} size="h4" id={titleId} style={{ overflowWrap: 'anywhere' }}>
                {integration.name}
              </Title>
              <Badge variant="outline" color="gray" miw="max-content">
                {t(`integrations.vendors.kind.${integration.kind}`)}
              </Badge>
              <StatusBadge integration={integration} />
            </Group>
            <Text size="xs" c="dimmed">
              {active
                ? t('integrations.vendors.createdAt', { date: format.dateTime(integration.created_at) })
                : t('integrations.vendors.revokedAt', { date: format.dateTime(integration.revoked_at ?? integration.created_at) })}
            </Text>
          </Stack>
          {manage && active && (
            <Group gap="xs">
              <Button
                variant="default"
                size="xs"
                leftSection={<IconPencil size={14} aria-hidden />}
                onClick={() => setEditing(true)}
                aria-label={t('integrations.vendors.editNamed', { name: integration.name })}
              >
                {t('integrations.vendors.edit')}
              </Button>
              <Button
                variant="default"
                size="xs"
                leftSection={<IconRefresh size={14} aria-hidden />}
                onClick={() => setRotating(true)}
                aria-label={t(`integrations.vendors.rotate.${integration.kind}Named`, { name: integration.name })}
              >
                {t(`integrations.vendors.rotate.${integration.kind}Button`)}
              </Button>
              <ConfirmButton
                size="xs"
                label={t('integrations.vendors.revoke')}
                aria-label={t('integrations.vendors.revokeNamed', { name: integration.name })}
                title={t('integrations.vendors.revokeTitle', { name: integration.name })}
                message={t(`integrations.vendors.revokeConfirm.${integration.kind}`)}
                loading={revoke.isPending}
                onConfirm={() => revoke.mutate({ ...scope, id: integration.id })}
              />
            </Group>
          )}
        </Group>

        {active && (
          <>
            {square ? (
              <CopyUrl
                label={t('integrations.vendors.square.notificationUrl')}
                url={integration.url}
                description={t('integrations.vendors.square.notificationUrlHint')}
              />
            ) : (
              <Stack gap={2}>
                <Text size="sm" fw={500}>
                  {t('integrations.vendors.odoo.webhookUrl')}
                </Text>
                <Text size="sm" ff="monospace" style={{ overflowWrap: 'anywhere' }}>
                  {integration.url}
                </Text>
                <Text size="xs" c="dimmed">
                  {t('integrations.vendors.odoo.redactedHint')}
                </Text>
              </Stack>
            )}

            <Stack gap={4}>
              <Text size="sm" fw={500} id={`${titleId}-checklist`}>
                {t('integrations.vendors.check.title')}
              </Text>
              <List spacing={4} size="sm" center aria-labelledby={`${titleId}-checklist`}>
                {square ? <SquareChecklist integration={integration} /> : <OdooChecklist integration={integration} />}
              </List>
            </Stack>

            {integration.previous_expires_at && (
              <Text size="sm">
                {t(`integrations.vendors.previousUntil.${integration.kind}`, { date: format.dateTime(integration.previous_expires_at) })}
              </Text>
            )}

            <Text size="sm">
              {integration.last_received_at
                ? t('integrations.vendors.lastReceived', { date: format.dateTime(integration.last_received_at) })
                : t('integrations.vendors.nothingReceived')}
            </Text>
            {integration.failed_count > 0 && (
              <Text size="sm" c="red.9">
                {t('integrations.vendors.failedCount', { count: integration.failed_count })}
              </Text>
            )}
            <RefusedLines integration={integration} scope={scope} manage={manage} />
            {integration.last_error && (
              <Alert color="red" variant="light" icon={<IconAlertCircle aria-hidden />} title={t('integrations.vendors.lastError')}>
                <Stack gap={4}>
                  <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
                    {integration.last_error}
                  </Text>
                  {integration.last_error_at && (
                    <Text size="xs" c="red.9">
                      {format.dateTime(integration.last_error_at)}
                    </Text>
                  )}
                </Stack>
              </Alert>
            )}
          </>
        )}
      </Stack>
      {editing && <EditIntegrationModal integration={integration} scope={scope} onClose={() => setEditing(false)} />}
      {rotating && <RotateIntegrationModal integration={integration} scope={scope} onClose={() => setRotating(false)} />}
    </Card>
  );
}

function StatusBadge({ integration }: { integration: Integration }) {
  const { t } = useTranslation('integrations');
  const [color, key] =
    integration.status === 'revoked'
      ? (['gray', 'revoked'] as const)
      : integration.kind === 'square' && !squareReady(integration)
        ? (['orange', 'incomplete'] as const)
        : (['teal', 'active'] as const);
  return (
    <Badge variant="light" color={color} miw="max-content">
      {t(`integrations.vendors.status.${key}`)}
    </Badge>
  );
}
