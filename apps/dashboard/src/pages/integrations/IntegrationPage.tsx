import { Alert, Button, Card, Group, Stack, Text, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { DEACTIVATE_AFTER_FAILED_DELIVERIES, type WebhookSubscription } from '@merma/schema';
import { IconAlertTriangle, IconArrowLeft, IconSend } from '@tabler/icons-react';
import { useMutation, useSuspenseQuery } from '@tanstack/react-query';
import { getRouteApi, useNavigate } from '@tanstack/react-router';
import { useTranslation } from 'react-i18next';
import { ConfirmButton } from '../../components/confirm.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { AnchorLink } from '../../components/links.tsx';
import { ModeBadge } from '../../components/ModeBadge.tsx';
import { NoEstablishment } from '../../components/NoEstablishment.tsx';
import { Page } from '../../components/Page.tsx';
import { useFormat } from '../../lib/format.ts';
import { notifications } from '../../lib/notify.ts';
import { can } from '../../lib/permissions.ts';
import { useScope } from '../../lib/scope.ts';
import { queryClient, trpc } from '../../trpc.ts';
import { DeliveriesLog } from './DeliveriesLog.tsx';
import { RotateSecret } from './RotateSecret.tsx';
import { WebhookFields, WebhookStatusBadge, type WebhookValues, webhookRules } from './WebhookFields.tsx';

const route = getRouteApi('/app/integrations/$id');

export type WebhookScopeInput = { establishment_id: string; livemode: boolean; id: string };

/** How often an open page reads an active endpoint again, to show a deactivation without a reload. */
const WATCH_ACTIVE_MS = 15_000;

export function IntegrationPage() {
  const { t } = useTranslation('integrations');
  const { id } = route.useParams();
  const { establishment, livemode } = useScope();
  if (!establishment) {
    return (
      <Page title={t('integrations.detail.title')}>
        <NoEstablishment />
      </Page>
    );
  }
  return <Endpoint scope={{ establishment_id: establishment.id, livemode, id }} />;
}

function Endpoint({ scope }: { scope: WebhookScopeInput }) {
  const { t } = useTranslation('integrations');
  const format = useFormat();
  const navigate = useNavigate();
  const { me, mode } = useScope();
  const manage = can.manageIntegrations(me.role);
  // The dispatcher may deactivate the endpoint while the page is open: an active one is read again
  // every 15 s while the tab is visible, on returning to the tab, and whenever a delivery in the log
  // below settles (DeliveriesLog); a deactivated one changes only from here (reactivate).
  const { data: subscription } = useSuspenseQuery({
    ...trpc.webhooks.get.queryOptions(scope),
    refetchInterval: (query) => (query.state.data?.status === 'active' ? WATCH_ACTIVE_MS : false),
    refetchOnWindowFocus: true,
  });

  const touched = () => queryClient.invalidateQueries(trpc.webhooks.pathFilter());
  const reactivate = useMutation(
    trpc.webhooks.reactivate.mutationOptions({
      onSuccess: () => {
        notifications.show({ color: 'teal', message: t('integrations.detail.reactivated') });
        return touched();
      },
    }),
  );
  const sendTest = useMutation(
    trpc.webhooks.sendTest.mutationOptions({
      onSuccess: () => {
        notifications.show({ color: 'teal', message: t('integrations.detail.testSent') });
        return queryClient.invalidateQueries(trpc.webhooks.deliveries.pathFilter());
      },
    }),
  );
  const remove = useMutation(
    trpc.webhooks.delete.mutationOptions({
      onSuccess: async () => {
        notifications.show({ color: 'teal', message: t('integrations.detail.deleted') });
        await navigate({ to: '/integrations', search: (prev) => ({ ...prev, page: undefined }) });
        queryClient.removeQueries(trpc.webhooks.get.queryFilter(scope));
        await queryClient.invalidateQueries(trpc.webhooks.list.pathFilter());
      },
    }),
  );

  return (
    <Page
      title={t('integrations.detail.title')}
      description={
        <Text span size="sm" style={{ wordBreak: 'break-all' }}>
          {subscription.url}
        </Text>
      }
      actions={
        manage && (
          <>
            <Button
              variant="default"
              leftSection={<IconSend size={16} aria-hidden />}
              onClick={() => sendTest.mutate(scope)}
              loading={sendTest.isPending}
            >
              {t('integrations.detail.sendTest')}
            </Button>
            <ConfirmButton
              label={t('integrations.detail.delete')}
              title={t('integrations.detail.deleteTitle')}
              message={t('integrations.detail.deleteConfirm', { url: subscription.url })}
              loading={remove.isPending}
              onConfirm={() => remove.mutate(scope)}
            />
          </>
        )
      }
    >
      <Group gap="sm">
        <AnchorLink to="/integrations" search={(prev) => ({ ...prev, page: undefined })} size="sm">
          <Group gap={4} component="span">
            <IconArrowLeft size={14} aria-hidden />
            {t('integrations.detail.back')}
          </Group>
        </AnchorLink>
        <WebhookStatusBadge status={subscription.status} />
        <ModeBadge mode={mode} />
        <Text size="sm" c="dimmed">
          {t('integrations.detail.failures', { count: subscription.consecutive_failures })}
        </Text>
      </Group>

      {subscription.status === 'deactivated' && (
        <Alert color="red" variant="light" icon={<IconAlertTriangle aria-hidden />} title={t('integrations.detail.deactivatedTitle')}>
          <Stack gap="sm" align="flex-start">
            <Text size="sm">
              {/* Why it was deactivated, and when: one 410 Gone is enough, or repeated failures (none for
                  a subscription deactivated before the reason was kept). */}
              {t(
                subscription.deactivation_reason === 'gone'
                  ? 'integrations.detail.deactivatedGone'
                  : subscription.deactivation_reason === 'failures'
                    ? 'integrations.detail.deactivatedFailures'
                    : 'integrations.detail.deactivatedBody',
                {
                  date: subscription.deactivated_at ? format.dateTime(subscription.deactivated_at) : '',
                  n: DEACTIVATE_AFTER_FAILED_DELIVERIES,
                },
              )}
            </Text>
            {manage && (
              <Button color="red" size="xs" onClick={() => reactivate.mutate(scope)} loading={reactivate.isPending}>
                {t('integrations.detail.reactivate')}
              </Button>
            )}
          </Stack>
        </Alert>
      )}

      <Settings scope={scope} subscription={subscription} manage={manage} />
      <RotateSecret scope={scope} subscription={subscription} manage={manage} />
      <DeliveriesLog scope={scope} manage={manage} />
    </Page>
  );
}

function Settings({ scope, subscription, manage }: { scope: WebhookScopeInput; subscription: WebhookSubscription; manage: boolean }) {
  const { t } = useTranslation('integrations');
  const { t: common } = useTranslation();
  const form = useForm<WebhookValues>({
    initialValues: { url: subscription.url, events: subscription.events, description: subscription.description ?? '' },
    validate: webhookRules(common),
  });
  const update = useMutation(
    trpc.webhooks.update.mutationOptions({
      meta: { inlineError: true },
      onSuccess: (updated) => {
        notifications.show({ color: 'teal', message: t('integrations.detail.saved') });
        form.resetDirty({ url: updated.url, events: updated.events, description: updated.description ?? '' });
        return queryClient.invalidateQueries(trpc.webhooks.pathFilter());
      },
    }),
  );

  return (
    <Card withBorder padding="lg" component="section" aria-labelledby="settings-title">
      <form
        noValidate
        onSubmit={form.onSubmit((values) =>
          update.mutate({ ...scope, url: values.url.trim(), events: values.events, description: values.description.trim() || null }),
        )}
      >
        <Stack gap="md">
          <Title order={2} size="h3" id="settings-title">
            {t('integrations.detail.settings')}
          </Title>
          {update.error && <ErrorAlert error={update.error} />}
          <WebhookFields form={form} readOnly={!manage} />
          {manage && (
            <Group justify="flex-end">
              <Button type="submit" loading={update.isPending} disabled={!form.isDirty()}>
                {common('common.save')}
              </Button>
            </Group>
          )}
        </Stack>
      </form>
    </Card>
  );
}
