import { Alert, Button, Group } from '@mantine/core';
import type { SocialEntity } from '@merma/schema';
import type { DashboardDonationAgreement } from '@merma/schema/dashboard';
import { useSuspenseQuery } from '@tanstack/react-query';
import { getRouteApi } from '@tanstack/react-router';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ExpiringAgreementsAlert } from '../../components/ExpiringAgreementsAlert.tsx';
import { Page } from '../../components/Page.tsx';
import { can } from '../../lib/permissions.ts';
import { useScope } from '../../lib/scope.ts';
import { donationAgreementsOptions, expiringAgreementsOptions } from '../../queries.ts';
import { trpc } from '../../trpc.ts';
import { AgreementFormModal } from './AgreementFormModal.tsx';
import { AgreementsSection } from './AgreementsSection.tsx';
import { DocumentModal } from './DocumentModal.tsx';
import { EntitiesSection } from './EntitiesSection.tsx';
import { EntityFormModal } from './EntityFormModal.tsx';

const route = getRouteApi('/app/donations');

/**
 * The social entities and food banks the organisation donates to, and its donation agreements with
 * them (Ley 1/2025 art. 7): validity, status, what the entity accepts and how it collects, and the
 * signed PDF with its SHA-256. Agreements that end within 30 days are flagged, here and on the
 * overview. Every member reads; owners and admins add and change entities and agreements and upload
 * the signed document. Both are the organisation's, the same in test and live mode: in test mode the
 * page says so, since what is changed here is real.
 */
export function DonationsPage() {
  const { t } = useTranslation('donations');
  const { me, mode } = useScope();
  const search = route.useSearch();
  const manage = can.manageDonations(me.role);
  const { data: entities } = useSuspenseQuery(trpc.donations.entities.queryOptions());
  const known = { establishmentIds: me.establishments.map((e) => e.id), entityIds: entities.map((e) => e.id) };
  const { data: agreements } = useSuspenseQuery(donationAgreementsOptions(search, known));
  const { data: expiring } = useSuspenseQuery(expiringAgreementsOptions());
  const [entityForm, setEntityForm] = useState<SocialEntity | 'new' | null>(null);
  const [agreementForm, setAgreementForm] = useState<DashboardDonationAgreement | 'new' | null>(null);
  const [documentOf, setDocumentOf] = useState<DashboardDonationAgreement | null>(null);
  const activeEntities = entities.filter((e) => !e.archived);

  return (
    <Page
      title={t('donations.title')}
      description={t('donations.description')}
      actions={
        manage && (
          <Group gap="xs">
            <Button variant="default" onClick={() => setEntityForm('new')}>
              {t('donations.entities.add')}
            </Button>
            <Button onClick={() => setAgreementForm('new')} disabled={activeEntities.length === 0}>
              {t('donations.agreements.add')}
            </Button>
          </Group>
        )
      }
    >
      {mode === 'test' && (
        <Alert color="blue" variant="light" data-testid="donations-shared">
          {t('donations.sharedByModes')}
        </Alert>
      )}
      <ExpiringAgreementsAlert agreements={expiring} />
      <AgreementsSection
        agreements={agreements}
        entities={entities}
        search={search}
        manage={manage}
        onEdit={setAgreementForm}
        onDocument={setDocumentOf}
      />
      <EntitiesSection entities={entities} manage={manage} onEdit={setEntityForm} />
      {entityForm && <EntityFormModal entity={entityForm === 'new' ? null : entityForm} onClose={() => setEntityForm(null)} />}
      {agreementForm && (
        <AgreementFormModal
          agreement={agreementForm === 'new' ? null : agreementForm}
          entities={activeEntities}
          defaultEntity={search.entity}
          onClose={() => setAgreementForm(null)}
        />
      )}
      {documentOf && <DocumentModal agreement={documentOf} onClose={() => setDocumentOf(null)} />}
    </Page>
  );
}
