import { Alert, Button, Group } from '@mantine/core';
import type { SocialEntity } from '@merma/schema';
import type { DashboardDonationAgreement } from '@merma/schema/dashboard';
import { useSuspenseQuery } from '@tanstack/react-query';
import { getRouteApi, useNavigate } from '@tanstack/react-router';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ExpiringAgreementsAlert } from '../../components/ExpiringAgreementsAlert.tsx';
import { NoEstablishment } from '../../components/NoEstablishment.tsx';
import { Page } from '../../components/Page.tsx';
import { can } from '../../lib/permissions.ts';
import { useScope } from '../../lib/scope.ts';
import type { DonationsSearch } from '../../lib/search.ts';
import { defaultTaxYear, donationAgreementsOptions, donationsListOptions, expiringAgreementsOptions } from '../../queries.ts';
import { trpc } from '../../trpc.ts';
import { AgreementFormModal } from './AgreementFormModal.tsx';
import { AgreementsSection } from './AgreementsSection.tsx';
import { DocumentModal } from './DocumentModal.tsx';
import { DonationModal } from './DonationModal.tsx';
import { DonationsSection } from './DonationsSection.tsx';
import { EntitiesSection } from './EntitiesSection.tsx';
import { EntityFormModal } from './EntityFormModal.tsx';
import { OfferDonationModal } from './OfferDonationModal.tsx';
import { TaxPackSection } from './TaxPackSection.tsx';

const route = getRouteApi('/app/donations');

/**
 * The donations the establishment offered (in the mode shown), and the social entities and food
 * banks the organisation donates to with its donation agreements (Ley 1/2025 art. 7): validity,
 * status, what the entity accepts and how it collects, and the signed PDF with its SHA-256.
 * Agreements that end within 30 days are flagged, here and on the overview; refused lines still
 * waiting for a destination, at the top. Every member reads; owners, admins and developers offer
 * donations and follow them (their signing link, the entity's answer, collection, a refused line's
 * destination); owners and admins add and change entities and agreements and upload the signed
 * document. Entities and agreements are the organisation's, the same in test and live mode: in test
 * mode the page says so, since what is changed there is real. Last, the year's tax pack of the
 * organisation in the mode shown (TaxPackSection), with its files and the entities' signed
 * certificates, which owners and admins upload.
 */
export function DonationsPage() {
  const { t } = useTranslation('donations');
  const { me, mode, establishment, livemode } = useScope();
  const search = route.useSearch();
  const navigate = useNavigate({ from: '/donations' });
  const manage = can.manageDonations(me.role);
  const offer = can.offerDonations(me.role);
  const scope = establishment ? { establishment_id: establishment.id, livemode } : null;
  const [offering, setOffering] = useState(false);
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
        (manage || (offer && scope)) && (
          <Group gap="xs">
            {manage && (
              <>
                <Button variant="default" onClick={() => setEntityForm('new')}>
                  {t('donations.entities.add')}
                </Button>
                <Button variant="default" onClick={() => setAgreementForm('new')} disabled={activeEntities.length === 0}>
                  {t('donations.agreements.add')}
                </Button>
              </>
            )}
            {offer && scope && <Button onClick={() => setOffering(true)}>{t('donations.offers.offer')}</Button>}
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
      {scope && establishment ? <Donations scope={scope} search={search} timezone={establishment.timezone} /> : <NoEstablishment />}
      <AgreementsSection
        agreements={agreements}
        entities={entities}
        search={search}
        manage={manage}
        onEdit={setAgreementForm}
        onDocument={setDocumentOf}
      />
      <EntitiesSection entities={entities} manage={manage} onEdit={setEntityForm} />
      <TaxPackSection
        year={search.tax_year ?? defaultTaxYear()}
        livemode={livemode}
        manage={manage}
        onYearChange={(year) => void navigate({ search: (prev) => ({ ...prev, tax_year: year }) })}
      />
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
      {offering && scope && establishment && (
        <OfferDonationModal
          scope={scope}
          establishmentName={establishment.name}
          onClose={() => setOffering(false)}
          onOffered={(id) => {
            setOffering(false);
            void navigate({ search: (prev) => ({ ...prev, donation: id }) });
          }}
        />
      )}
      {search.donation && scope && establishment && (
        <DonationModal
          key={search.donation}
          id={search.donation}
          scope={scope}
          timezone={establishment.timezone}
          write={offer}
          onClose={() => void navigate({ search: (prev) => ({ ...prev, donation: undefined }) })}
        />
      )}
    </Page>
  );
}

/** The establishment's donations of the mode shown (the loader fetched the page the URL names). */
function Donations({
  scope,
  search,
  timezone,
}: {
  scope: { establishment_id: string; livemode: boolean };
  search: DonationsSearch;
  timezone: string;
}) {
  const { data } = useSuspenseQuery(donationsListOptions(scope, search));
  return <DonationsSection page={data} search={search} timezone={timezone} />;
}
