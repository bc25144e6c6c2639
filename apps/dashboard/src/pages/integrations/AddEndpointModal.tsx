import { useForm } from '@mantine/form';
import { useTranslation } from 'react-i18next';
import { ModalForm, SecretFormModal, type ShownSecret, useMutationKeepingResult } from '../../components/SecretFormModal.tsx';
import { trpc } from '../../trpc.ts';
import { WebhookFields, type WebhookValues, webhookRules } from './WebhookFields.tsx';

type Props = { onClose: () => void; establishmentId: string; livemode: boolean };

/** Adds an endpoint, then shows its signing secret once. Render it only while open. */
export function AddEndpointModal({ onClose, establishmentId, livemode }: Props) {
  const { t } = useTranslation('integrations');
  const { t: common } = useTranslation();
  const form = useForm<WebhookValues>({ initialValues: { url: '', events: [], description: '' }, validate: webhookRules(common) });
  const { mutation: create, result: created } = useMutationKeepingResult(
    trpc.webhooks.create.mutationOptions(),
    trpc.webhooks.list.pathFilter(),
  );

  const shown: ShownSecret | null = created
    ? {
        title: t('integrations.created.title'),
        label: t('integrations.secret.label'),
        secret: created.secret,
        warning: t('integrations.secret.warning'),
      }
    : null;

  return (
    <SecretFormModal onClose={onClose} title={t('integrations.add.title')} shown={shown}>
      <ModalForm
        onSubmit={form.onSubmit((values) =>
          create.mutate({
            establishment_id: establishmentId,
            livemode,
            url: values.url.trim(),
            events: values.events,
            description: values.description.trim() || null,
          }),
        )}
        mutation={create}
        submitLabel={t('integrations.add.submit')}
        onCancel={onClose}
      >
        <WebhookFields form={form} />
      </ModalForm>
    </SecretFormModal>
  );
}
