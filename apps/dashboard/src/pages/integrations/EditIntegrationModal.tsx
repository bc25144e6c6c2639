import { Modal, Stack, Text } from '@mantine/core';
import { useForm } from '@mantine/form';
import type { Integration } from '@merma/schema/dashboard';
import { useMutation } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { ModalForm } from '../../components/SecretFormModal.tsx';
import { notifications } from '../../lib/notify.ts';
import { queryClient, trpc } from '../../trpc.ts';
import {
  type IntegrationChanges,
  OdooFields,
  type OdooValues,
  odooChanges,
  odooRules,
  SquareFields,
  type SquareValues,
  squareChanges,
  squareRules,
} from './VendorFields.tsx';

type Scope = { establishment_id: string; livemode: boolean };
type Props = { integration: Integration; scope: Scope; onClose: () => void };

/**
 * Changes an integration's name, settings and credentials. Credentials are never shown: their
 * fields start empty, and only what is typed is sent (an empty field keeps the stored value); a
 * setting is sent only when it differs from the stored one. Render it only while open.
 */
export function EditIntegrationModal({ integration, scope, onClose }: Props) {
  const { t } = useTranslation('integrations');
  const update = useMutation(
    trpc.integrations.update.mutationOptions({
      meta: { inlineError: true },
      onSuccess: () => {
        notifications.show({ color: 'teal', message: t('integrations.vendors.saved') });
        onClose();
        return queryClient.invalidateQueries(trpc.integrations.list.pathFilter());
      },
    }),
  );
  const save = (changes: IntegrationChanges) => {
    const sent = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined));
    if (Object.keys(sent).length === 0) {
      onClose();
      return;
    }
    update.mutate({ ...scope, id: integration.id, ...sent });
  };
  const title = t('integrations.vendors.editTitle', { name: integration.name });

  return (
    <Modal opened onClose={onClose} title={title} size="lg">
      <Stack gap="md">
        <Text size="sm" c="dimmed">
          {t('integrations.vendors.editExplain')}
        </Text>
        {integration.kind === 'square' ? (
          <SquareEdit integration={integration} onSave={save} onCancel={onClose} mutation={update} />
        ) : (
          <OdooEdit integration={integration} onSave={save} onCancel={onClose} mutation={update} />
        )}
      </Stack>
    </Modal>
  );
}

type EditProps = {
  integration: Integration;
  onSave: (changes: IntegrationChanges) => void;
  onCancel: () => void;
  mutation: { error: unknown; isPending: boolean };
};

function SquareEdit({ integration, onSave, onCancel, mutation }: EditProps) {
  const { t } = useTranslation();
  const form = useForm<SquareValues>({
    initialValues: { name: integration.name, signature_key: '', access_token: '', location_id: integration.settings.location_id ?? '' },
    validate: squareRules(t, integration),
  });
  return (
    <ModalForm
      onSubmit={form.onSubmit((v) => onSave(squareChanges(v, integration)))}
      mutation={mutation}
      submitLabel={t('common.save')}
      onCancel={onCancel}
    >
      <SquareFields form={form} current={integration} />
    </ModalForm>
  );
}

function OdooEdit({ integration, onSave, onCancel, mutation }: EditProps) {
  const { t } = useTranslation();
  const s = integration.settings;
  const form = useForm<OdooValues>({
    initialValues: {
      name: integration.name,
      odoo_url: s.url ?? '',
      database: s.database ?? '',
      login: s.login ?? '',
      api_key: '',
      company_id: s.company_id === undefined ? '' : String(s.company_id),
    },
    validate: odooRules(t, integration),
  });
  return (
    <ModalForm
      onSubmit={form.onSubmit((v) => onSave(odooChanges(v, integration)))}
      mutation={mutation}
      submitLabel={t('common.save')}
      onCancel={onCancel}
    >
      <OdooFields form={form} current={integration} />
    </ModalForm>
  );
}
