import { Alert, Button, Group, Modal, PasswordInput, Stack, Text } from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import type { Integration } from '@merma/schema/dashboard';
import { IconInfoCircle } from '@tabler/icons-react';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { queryClient, trpc } from '../../trpc.ts';
import { CodeText, credentialRule, given, SquareFields, type SquareValues, squareRules } from './VendorFields.tsx';
import { CopyUrl } from './VendorIntegrationCard.tsx';

type Props = { onClose: () => void; establishmentId: string; livemode: boolean };

/**
 * Connects a Square seller account, then shows the notification URL to paste into the Square
 * webhook subscription. Square shows the subscription's signature key only once the subscription
 * exists, so the key may be left out of the form and pasted in the second step (or later).
 * Render it only while open.
 */
export function ConnectSquareModal({ onClose, establishmentId, livemode }: Props) {
  const { t } = useTranslation();
  const [created, setCreated] = useState<Integration | null>(null);
  const form = useForm<SquareValues>({
    initialValues: { name: '', signature_key: '', access_token: '', location_id: '' },
    validate: squareRules(t),
  });
  const create = useMutation(
    trpc.integrations.create.mutationOptions({
      meta: { inlineError: true },
      onSuccess: (integration) => {
        setCreated(integration);
        return queryClient.invalidateQueries(trpc.integrations.list.pathFilter());
      },
    }),
  );

  return (
    <Modal
      opened
      onClose={onClose}
      title={created ? t('integrations.vendors.square.connectedTitle') : t('integrations.vendors.square.connectTitle')}
      size="lg"
    >
      {created ? (
        <NextStep integration={created} scope={{ establishment_id: establishmentId, livemode }} onDone={onClose} />
      ) : (
        <form
          noValidate
          onSubmit={form.onSubmit((values) =>
            create.mutate({
              establishment_id: establishmentId,
              livemode,
              kind: 'square',
              name: values.name.trim(),
              signature_key: given(values.signature_key),
              access_token: given(values.access_token),
              location_id: given(values.location_id),
            }),
          )}
        >
          <Stack gap="md">
            {create.error && <ErrorAlert error={create.error} />}
            <Alert color="blue" variant="light" icon={<IconInfoCircle aria-hidden />}>
              {livemode ? t('integrations.vendors.square.environmentLive') : t('integrations.vendors.square.environmentTest')}
            </Alert>
            <SquareFields form={form} />
            <Group justify="flex-end">
              <Button variant="default" onClick={onClose}>
                {t('common.cancel')}
              </Button>
              <Button type="submit" loading={create.isPending}>
                {t('integrations.vendors.square.connectSubmit')}
              </Button>
            </Group>
          </Stack>
        </form>
      )}
    </Modal>
  );
}

/** After connecting: the notification URL for Square, and the signature key when it was not given yet. */
function NextStep({
  integration,
  scope,
  onDone,
}: {
  integration: Integration;
  scope: { establishment_id: string; livemode: boolean };
  onDone: () => void;
}) {
  const { t } = useTranslation();
  const [keySet, setKeySet] = useState(integration.signature_key_set);
  const form = useForm({ initialValues: { signature_key: '' }, validate: { signature_key: credentialRule(t, true) } });
  const update = useMutation(
    trpc.integrations.update.mutationOptions({
      meta: { inlineError: true },
      onSuccess: () => {
        setKeySet(true);
        notifications.show({ color: 'teal', message: t('integrations.vendors.saved') });
        return queryClient.invalidateQueries(trpc.integrations.list.pathFilter());
      },
    }),
  );
  return (
    <Stack gap="md">
      <Text size="sm">
        <CodeText text={t('integrations.vendors.square.nextStep')} />
      </Text>
      <CopyUrl label={t('integrations.vendors.square.notificationUrl')} url={integration.url} />
      {keySet ? (
        <Group justify="flex-end">
          <Button onClick={onDone}>{t('integrations.vendors.square.done')}</Button>
        </Group>
      ) : (
        <form
          noValidate
          onSubmit={form.onSubmit((values) => update.mutate({ ...scope, id: integration.id, signature_key: values.signature_key.trim() }))}
        >
          <Stack gap="md">
            {update.error && <ErrorAlert error={update.error} />}
            <PasswordInput
              label={t('integrations.vendors.fields.signatureKey')}
              description={t('integrations.vendors.fields.signatureKeyHint')}
              required
              autoComplete="off"
              {...form.getInputProps('signature_key')}
            />
            <Group justify="flex-end">
              <Button variant="default" onClick={onDone}>
                {t('integrations.vendors.square.later')}
              </Button>
              <Button type="submit" loading={update.isPending}>
                {t('integrations.vendors.square.saveKey')}
              </Button>
            </Group>
          </Stack>
        </form>
      )}
    </Stack>
  );
}
