import { Button, Group, Modal, Stack, Text } from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import type { Integration, UpdateIntegrationInput } from '@merma/schema/dashboard';
import { useMutation } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { queryClient, trpc } from '../../trpc.ts';
import { changed, given, OdooFields, type OdooValues, odooRules, SquareFields, type SquareValues, squareRules } from './VendorFields.tsx';

type Scope = { establishment_id: string; livemode: boolean };
type Props = { integration: Integration; scope: Scope; onClose: () => void };

/**
 * Changes an integration's name, settings and credentials. Credentials are never shown: their
 * fields start empty, and only what is typed is sent (an empty field keeps the stored value); a
 * setting is sent only when it differs from the stored one. Render it only while open.
 */
export function EditIntegrationModal({ integration, scope, onClose }: Props) {
  const { t } = useTranslation();
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
  const save = (changes: Omit<UpdateIntegrationInput, 'establishment_id' | 'livemode' | 'id'>) => {
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
        {update.error && <ErrorAlert error={update.error} />}
        {integration.kind === 'square' ? (
          <SquareEdit integration={integration} onSave={save} onCancel={onClose} pending={update.isPending} />
        ) : (
          <OdooEdit integration={integration} onSave={save} onCancel={onClose} pending={update.isPending} />
        )}
      </Stack>
    </Modal>
  );
}

type EditProps = {
  integration: Integration;
  onSave: (changes: Omit<UpdateIntegrationInput, 'establishment_id' | 'livemode' | 'id'>) => void;
  onCancel: () => void;
  pending: boolean;
};

function SquareEdit({ integration, onSave, onCancel, pending }: EditProps) {
  const { t } = useTranslation();
  const form = useForm<SquareValues>({
    initialValues: { name: integration.name, signature_key: '', access_token: '', location_id: integration.settings.location_id ?? '' },
    validate: squareRules(t, integration),
  });
  return (
    <form
      noValidate
      onSubmit={form.onSubmit((v) =>
        onSave({
          name: changed(v.name, integration.name),
          signature_key: given(v.signature_key),
          access_token: given(v.access_token),
          location_id: changed(v.location_id, integration.settings.location_id),
        }),
      )}
    >
      <Stack gap="md">
        <SquareFields form={form} current={integration} />
        <Buttons onCancel={onCancel} pending={pending} />
      </Stack>
    </form>
  );
}

function OdooEdit({ integration, onSave, onCancel, pending }: EditProps) {
  const { t } = useTranslation();
  const s = integration.settings;
  const form = useForm<OdooValues>({
    initialValues: { name: integration.name, odoo_url: s.url ?? '', database: s.database ?? '', login: s.login ?? '', api_key: '' },
    validate: odooRules(t, integration),
  });
  return (
    <form
      noValidate
      onSubmit={form.onSubmit((v) =>
        onSave({
          name: changed(v.name, integration.name),
          odoo_url: changed(v.odoo_url, s.url),
          database: changed(v.database, s.database),
          login: changed(v.login, s.login),
          api_key: given(v.api_key),
        }),
      )}
    >
      <Stack gap="md">
        <OdooFields form={form} current={integration} />
        <Buttons onCancel={onCancel} pending={pending} />
      </Stack>
    </form>
  );
}

function Buttons({ onCancel, pending }: { onCancel: () => void; pending: boolean }) {
  const { t } = useTranslation();
  return (
    <Group justify="flex-end">
      <Button variant="default" onClick={onCancel}>
        {t('common.cancel')}
      </Button>
      <Button type="submit" loading={pending}>
        {t('common.save')}
      </Button>
    </Group>
  );
}
