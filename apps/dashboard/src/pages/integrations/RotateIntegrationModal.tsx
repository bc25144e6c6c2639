import { Button, Group, Modal, PasswordInput, Select, Stack, Text } from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import type { Integration, IntegrationWithUrl } from '@merma/schema/dashboard';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { SecretShownOnce, secretModalProps } from '../../components/SecretShownOnce.tsx';
import { queryClient, trpc } from '../../trpc.ts';
import { GRACE_PERIODS } from './RotateSecret.tsx';
import { CodeText, credentialRule } from './VendorFields.tsx';

type Props = { integration: Integration; scope: { establishment_id: string; livemode: boolean }; onClose: () => void };

/**
 * Replaces the secret the vendor authenticates with. Odoo: a new URL, shown once (the automation
 * rules must be given it). Square: the new signature key Square shows for the subscription. The
 * replaced one keeps being accepted for the chosen time (a day unless chosen otherwise, as for
 * webhook secrets), so nothing sent while the customer moves between the two consoles is refused.
 * Render it only while open.
 */
export function RotateIntegrationModal({ integration, scope, onClose }: Props) {
  const { t } = useTranslation();
  const square = integration.kind === 'square';
  const [rotated, setRotated] = useState<IntegrationWithUrl | null>(null);
  const form = useForm({
    initialValues: { signature_key: '', grace: '86400' },
    validate: { signature_key: (value: string) => (square ? credentialRule(t, true)(value) : null) },
  });
  const rotate = useMutation(
    trpc.integrations.rotate.mutationOptions({
      meta: { inlineError: true },
      onSuccess: (result) => {
        if (result.secret_url) setRotated(result);
        else {
          notifications.show({ color: 'teal', message: t('integrations.vendors.rotate.squareDone') });
          onClose();
        }
        return queryClient.invalidateQueries(trpc.integrations.list.pathFilter());
      },
    }),
  );
  const kind = square ? 'square' : 'odoo';

  return (
    <Modal
      opened
      onClose={rotated ? () => {} : onClose}
      title={rotated ? t('integrations.vendors.rotate.odooNewTitle') : t(`integrations.vendors.rotate.${kind}Title`)}
      size="lg"
      {...(rotated ? secretModalProps : {})}
    >
      {rotated?.secret_url ? (
        <SecretShownOnce
          label={t('integrations.vendors.odoo.webhookUrl')}
          secret={rotated.secret_url}
          warning={t('integrations.vendors.rotate.odooWarning')}
          onDone={onClose}
          multiline
        />
      ) : (
        <form
          noValidate
          onSubmit={form.onSubmit((values) =>
            rotate.mutate({
              ...scope,
              id: integration.id,
              grace_period_seconds: Number(values.grace),
              ...(square ? { signature_key: values.signature_key.trim() } : {}),
            }),
          )}
        >
          <Stack gap="md">
            {rotate.error && <ErrorAlert error={rotate.error} />}
            <Text size="sm">
              <CodeText text={t(`integrations.vendors.rotate.${kind}Explain`)} />
            </Text>
            {square && (
              <PasswordInput
                label={t('integrations.vendors.rotate.newSignatureKey')}
                required
                autoComplete="off"
                data-autofocus
                {...form.getInputProps('signature_key')}
              />
            )}
            <Select
              label={t(`integrations.vendors.rotate.${kind}Grace`)}
              data={GRACE_PERIODS.map((g) => ({ value: String(g.seconds), label: t(`integrations.vendors.rotate.graceOptions.${g.key}`) }))}
              allowDeselect={false}
              {...form.getInputProps('grace')}
            />
            <Group justify="flex-end">
              <Button variant="default" onClick={onClose}>
                {t('common.cancel')}
              </Button>
              <Button type="submit" color="red" loading={rotate.isPending}>
                {t(`integrations.vendors.rotate.${kind}Confirm`)}
              </Button>
            </Group>
          </Stack>
        </form>
      )}
    </Modal>
  );
}
