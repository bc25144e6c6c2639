import { Select, Text } from '@mantine/core';
import { useForm } from '@mantine/form';
import type { Integration } from '@merma/schema/dashboard';
import { useTranslation } from 'react-i18next';
import { ModalForm, SecretFormModal, type ShownSecret, useMutationKeepingResult } from '../../components/SecretFormModal.tsx';
import { notifications } from '../../lib/notify.ts';
import { trpc } from '../../trpc.ts';
import { GRACE_PERIODS } from './RotateSecret.tsx';
import { CodeText, credentialRule, WriteOnlyField } from './VendorFields.tsx';

type Props = { integration: Integration; scope: { establishment_id: string; livemode: boolean }; onClose: () => void };

/**
 * Replaces the secret the vendor authenticates with. Odoo: a new URL, shown once (the automation
 * rules must be given it). Square: the new signature key Square shows for the subscription. The
 * replaced one keeps being accepted for the chosen time (a day unless chosen otherwise, as for
 * webhook secrets), so nothing sent while the customer moves between the two consoles is refused.
 * Render it only while open.
 */
export function RotateIntegrationModal({ integration, scope, onClose }: Props) {
  const { t } = useTranslation('integrations');
  const { t: common } = useTranslation();
  const square = integration.kind === 'square';
  const form = useForm({
    initialValues: { signature_key: '', grace: '86400' },
    validate: { signature_key: (value: string) => (square ? credentialRule(common, true)(value) : null) },
  });
  const { mutation: rotate, result: rotated } = useMutationKeepingResult(
    trpc.integrations.rotate.mutationOptions({
      // Square's new key is the customer's own: nothing to show, so the modal closes.
      onSuccess: (result) => {
        if (result.secret_url) return;
        notifications.show({ color: 'teal', message: t('integrations.vendors.rotate.squareDone') });
        onClose();
      },
    }),
    trpc.integrations.list.pathFilter(),
  );
  const kind = square ? 'square' : 'odoo';

  const shown: ShownSecret | null = rotated?.secret_url
    ? {
        title: t('integrations.vendors.rotate.odooNewTitle'),
        label: t('integrations.vendors.odoo.webhookUrl'),
        secret: rotated.secret_url,
        warning: t('integrations.vendors.rotate.odooWarning'),
        multiline: true,
      }
    : null;

  return (
    <SecretFormModal onClose={onClose} title={t(`integrations.vendors.rotate.${kind}Title`)} shown={shown}>
      <ModalForm
        onSubmit={form.onSubmit((values) =>
          rotate.mutate({
            ...scope,
            id: integration.id,
            grace_period_seconds: Number(values.grace),
            ...(square ? { signature_key: values.signature_key.trim() } : {}),
          }),
        )}
        mutation={rotate}
        submitLabel={t(`integrations.vendors.rotate.${kind}Confirm`)}
        submitColor="red"
        onCancel={onClose}
      >
        <Text size="sm">
          <CodeText text={t(`integrations.vendors.rotate.${kind}Explain`)} />
        </Text>
        {square && (
          <WriteOnlyField
            label={t('integrations.vendors.rotate.newSignatureKey')}
            required
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
      </ModalForm>
    </SecretFormModal>
  );
}
