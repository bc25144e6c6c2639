import { Button, Group, Modal, Stack } from '@mantine/core';
import { useForm } from '@mantine/form';
import type { WebhookSubscriptionWithSecret } from '@merma/schema';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { SecretShownOnce, secretModalProps } from '../../components/SecretShownOnce.tsx';
import { queryClient, trpc } from '../../trpc.ts';
import { WebhookFields, type WebhookValues, webhookRules } from './WebhookFields.tsx';

type Props = { onClose: () => void; establishmentId: string; livemode: boolean };

/** Adds an endpoint, then shows its signing secret once. Render it only while open. */
export function AddEndpointModal({ onClose, establishmentId, livemode }: Props) {
  const { t } = useTranslation();
  const [created, setCreated] = useState<WebhookSubscriptionWithSecret | null>(null);
  const form = useForm<WebhookValues>({ initialValues: { url: '', events: [], description: '' }, validate: webhookRules(t) });
  const create = useMutation(
    trpc.webhooks.create.mutationOptions({
      meta: { inlineError: true },
      onSuccess: (subscription) => {
        setCreated(subscription);
        return queryClient.invalidateQueries(trpc.webhooks.list.pathFilter());
      },
    }),
  );

  return (
    <Modal
      opened
      onClose={created ? () => {} : onClose}
      title={created ? t('integrations.created.title') : t('integrations.add.title')}
      size="lg"
      {...(created ? secretModalProps : {})}
    >
      {created ? (
        <SecretShownOnce
          label={t('integrations.secret.label')}
          secret={created.secret}
          warning={t('integrations.secret.warning')}
          onDone={onClose}
        />
      ) : (
        <form
          noValidate
          onSubmit={form.onSubmit((values) =>
            create.mutate({
              establishment_id: establishmentId,
              livemode,
              url: values.url.trim(),
              events: values.events,
              description: values.description.trim() || null,
            }),
          )}
        >
          <Stack gap="md">
            {create.error && <ErrorAlert error={create.error} />}
            <WebhookFields form={form} />
            <Group justify="flex-end">
              <Button variant="default" onClick={onClose}>
                {t('common.cancel')}
              </Button>
              <Button type="submit" loading={create.isPending}>
                {t('integrations.add.submit')}
              </Button>
            </Group>
          </Stack>
        </form>
      )}
    </Modal>
  );
}
