import { Alert, Button, Group, Modal, Stack, Text } from '@mantine/core';
import { useForm } from '@mantine/form';
import type { Integration } from '@merma/schema/dashboard';
import { IconInfoCircle } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { ModalForm, useMutationKeepingResult } from '../../components/SecretFormModal.tsx';
import { notifications } from '../../lib/notify.ts';
import { trpc } from '../../trpc.ts';
import { CodeText, credentialRule, given, SquareFields, type SquareValues, squareRules, WriteOnlyField } from './VendorFields.tsx';
import { CopyUrl } from './VendorIntegrationCard.tsx';

type Props = { onClose: () => void; establishmentId: string; livemode: boolean };

/**
 * Connects a Square seller account, then shows the notification URL to paste into the Square
 * webhook subscription. Square shows the subscription's signature key only once the subscription
 * exists, so the key may be left out of the form and pasted in the second step (or later).
 * Render it only while open.
 */
export function ConnectSquareModal({ onClose, establishmentId, livemode }: Props) {
  const { t } = useTranslation('integrations');
  const { t: common } = useTranslation();
  const form = useForm<SquareValues>({
    initialValues: { name: '', signature_key: '', access_token: '', location_id: '' },
    validate: squareRules(common),
  });
  const { mutation: create, result: created } = useMutationKeepingResult(
    trpc.integrations.create.mutationOptions(),
    trpc.integrations.list.pathFilter(),
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
        <ModalForm
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
          mutation={create}
          submitLabel={t('integrations.vendors.square.connectSubmit')}
          onCancel={onClose}
        >
          <Alert color="blue" variant="light" icon={<IconInfoCircle aria-hidden />}>
            {livemode ? t('integrations.vendors.square.environmentLive') : t('integrations.vendors.square.environmentTest')}
          </Alert>
          <SquareFields form={form} />
        </ModalForm>
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
  const { t } = useTranslation('integrations');
  const { t: common } = useTranslation();
  const form = useForm({ initialValues: { signature_key: '' }, validate: { signature_key: credentialRule(common, true) } });
  const { mutation: update, result: updated } = useMutationKeepingResult(
    trpc.integrations.update.mutationOptions({
      onSuccess: () => notifications.show({ color: 'teal', message: t('integrations.vendors.saved') }),
    }),
    trpc.integrations.list.pathFilter(),
  );
  const keySet = integration.signature_key_set || updated !== null;
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
        <ModalForm
          onSubmit={form.onSubmit((values) => update.mutate({ ...scope, id: integration.id, signature_key: values.signature_key.trim() }))}
          mutation={update}
          submitLabel={t('integrations.vendors.square.saveKey')}
          onCancel={onDone}
          cancelLabel={t('integrations.vendors.square.later')}
        >
          <WriteOnlyField
            label={t('integrations.vendors.fields.signatureKey')}
            description={t('integrations.vendors.fields.signatureKeyHint')}
            required
            {...form.getInputProps('signature_key')}
          />
        </ModalForm>
      )}
    </Stack>
  );
}
