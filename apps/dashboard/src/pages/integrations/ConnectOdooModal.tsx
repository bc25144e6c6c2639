import { Button, Group, Modal, Stack } from '@mantine/core';
import { useForm } from '@mantine/form';
import type { IntegrationWithUrl } from '@merma/schema/dashboard';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { SecretShownOnce, secretModalProps } from '../../components/SecretShownOnce.tsx';
import { queryClient, trpc } from '../../trpc.ts';
import { given, OdooFields, type OdooValues, odooRules } from './VendorFields.tsx';

type Props = { onClose: () => void; establishmentId: string; livemode: boolean };

/**
 * Connects an Odoo database, then shows its URL (which holds its token) once, in the read-only
 * view only "I have copied it" leaves. Render it only while open.
 */
export function ConnectOdooModal({ onClose, establishmentId, livemode }: Props) {
  const { t } = useTranslation();
  const [created, setCreated] = useState<IntegrationWithUrl | null>(null);
  const form = useForm<OdooValues>({
    initialValues: { name: '', odoo_url: '', database: '', login: '', api_key: '' },
    validate: odooRules(t),
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
  const shown = created?.secret_url;

  return (
    <Modal
      opened
      onClose={shown ? () => {} : onClose}
      title={shown ? t('integrations.vendors.odoo.connectedTitle') : t('integrations.vendors.odoo.connectTitle')}
      size="lg"
      {...(shown ? secretModalProps : {})}
    >
      {shown ? (
        <SecretShownOnce
          label={t('integrations.vendors.odoo.webhookUrl')}
          secret={shown}
          warning={t('integrations.vendors.odoo.urlWarning')}
          onDone={onClose}
          multiline
        />
      ) : (
        <form
          noValidate
          onSubmit={form.onSubmit((values) =>
            create.mutate({
              establishment_id: establishmentId,
              livemode,
              kind: 'odoo',
              name: values.name.trim(),
              odoo_url: given(values.odoo_url),
              database: given(values.database),
              login: given(values.login),
              api_key: given(values.api_key),
            }),
          )}
        >
          <Stack gap="md">
            {create.error && <ErrorAlert error={create.error} />}
            <OdooFields form={form} />
            <Group justify="flex-end">
              <Button variant="default" onClick={onClose}>
                {t('common.cancel')}
              </Button>
              <Button type="submit" loading={create.isPending}>
                {t('integrations.vendors.odoo.connectSubmit')}
              </Button>
            </Group>
          </Stack>
        </form>
      )}
    </Modal>
  );
}
