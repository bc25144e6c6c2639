import { useForm } from '@mantine/form';
import { useTranslation } from 'react-i18next';
import { ModalForm, SecretFormModal, type ShownSecret, useMutationKeepingResult } from '../../components/SecretFormModal.tsx';
import { trpc } from '../../trpc.ts';
import { companyOf, given, OdooFields, type OdooValues, odooRules } from './VendorFields.tsx';

type Props = { onClose: () => void; establishmentId: string; livemode: boolean };

/**
 * Connects an Odoo database, then shows its URL (which holds its token) once, in the read-only
 * view only "I have copied it" leaves. Render it only while open.
 */
export function ConnectOdooModal({ onClose, establishmentId, livemode }: Props) {
  const { t } = useTranslation('integrations');
  const { t: common } = useTranslation();
  const form = useForm<OdooValues>({
    initialValues: { name: '', odoo_url: '', database: '', login: '', api_key: '', company_id: '' },
    validate: odooRules(common),
  });
  const { mutation: create, result: created } = useMutationKeepingResult(
    trpc.integrations.create.mutationOptions(),
    trpc.integrations.list.pathFilter(),
  );
  const shown: ShownSecret | null = created?.secret_url
    ? {
        title: t('integrations.vendors.odoo.connectedTitle'),
        label: t('integrations.vendors.odoo.webhookUrl'),
        secret: created.secret_url,
        warning: t('integrations.vendors.odoo.urlWarning'),
        multiline: true,
      }
    : null;

  return (
    <SecretFormModal onClose={onClose} title={t('integrations.vendors.odoo.connectTitle')} shown={shown}>
      <ModalForm
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
            company_id: companyOf(values.company_id),
          }),
        )}
        mutation={create}
        submitLabel={t('integrations.vendors.odoo.connectSubmit')}
        onCancel={onClose}
      >
        <OdooFields form={form} />
      </ModalForm>
    </SecretFormModal>
  );
}
