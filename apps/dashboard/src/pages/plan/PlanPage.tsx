import { Alert, Button, Card, Group, List, NavLink, Stack, Table, Text, Title } from '@mantine/core';
import type { PreventionPlan } from '@merma/schema';
import { IconFilePlus, IconPrinter } from '@tabler/icons-react';
import { useMutation, useSuspenseQuery } from '@tanstack/react-query';
import { getRouteApi, useNavigate } from '@tanstack/react-router';
import { useTranslation } from 'react-i18next';
import { NoEstablishment } from '../../components/NoEstablishment.tsx';
import { Page } from '../../components/Page.tsx';
import { currentLanguage } from '../../i18n/index.ts';
import { useFormat } from '../../lib/format.ts';
import { notifications } from '../../lib/notify.ts';
import { can } from '../../lib/permissions.ts';
import { useScope } from '../../lib/scope.ts';
import { queryClient, trpc } from '../../trpc.ts';
import { DossierCard } from './DossierCard.tsx';
import { EsrsCard } from './EsrsCard.tsx';
import { MeasureStatusBadge, MeasuresCard, TrainingCard } from './FollowUpCards.tsx';
import { HierarchyCard } from './HierarchyCard.tsx';
import { ObligationsCard } from './ObligationsCard.tsx';
import { OrganizationCard } from './OrganizationCard.tsx';
import { ReductionCard } from './ReductionCard.tsx';
import { WasteStreamsCard } from './WasteStreamsCard.tsx';
import './print.css';

const route = getRouteApi('/app/plan');

/**
 * The food-waste prevention plan that Ley 1/2025 (art. 6) asks for: generated from the last 12
 * months of records, shown as a document in the page's language (the server writes its labels,
 * measures and target in that language too), printed to PDF by the browser with a print
 * stylesheet that leaves out the app's frame, and the history of earlier plans.
 */
export function PlanPage() {
  const { t } = useTranslation('plan');
  const { establishment } = useScope();
  return (
    <Page title={t('plan.page.title')} description={t('plan.page.description')}>
      {establishment ? <Plans establishment={establishment} /> : <NoEstablishment />}
    </Page>
  );
}

type PlanEstablishment = { id: string; name: string; cif: string };

function Plans({ establishment }: { establishment: PlanEstablishment }) {
  const { t } = useTranslation('plan');
  const { me, livemode } = useScope();
  const navigate = useNavigate();
  const { plan: planId } = route.useSearch();
  const scope = { establishment_id: establishment.id, livemode };
  const lang = currentLanguage();
  const { data: plan } = useSuspenseQuery(trpc.plan.get.queryOptions({ ...scope, lang, ...(planId ? { id: planId } : {}) }));
  const { data: history } = useSuspenseQuery(trpc.plan.history.queryOptions({ ...scope, limit: 20 }));
  // The establishment's current year (its time zone), from the answer the obligations card shows.
  const { data: obligations } = useSuspenseQuery(trpc.compliance.obligations.queryOptions({ establishment_id: establishment.id, lang }));
  const generate = useMutation(
    trpc.plan.generate.mutationOptions({
      onSuccess: async (created) => {
        notifications.show({ color: 'teal', message: t('plan.page.generated') });
        await queryClient.invalidateQueries(trpc.plan.pathFilter());
        void navigate({ to: '.', search: (prev) => ({ ...prev, plan: created.id }) });
      },
    }),
  );

  return (
    <Stack gap="lg">
      <ObligationsCard establishmentId={establishment.id} />
      <EsrsCard establishmentId={establishment.id} establishment={establishment} currentYear={Number(obligations.as_of.slice(0, 4))} />
      <ReductionCard establishmentId={establishment.id} currentYear={Number(obligations.as_of.slice(0, 4))} />
      {me.establishments.length > 1 && <OrganizationCard currentYear={Number(obligations.as_of.slice(0, 4))} />}
      <HierarchyCard establishmentId={establishment.id} currentYear={Number(obligations.as_of.slice(0, 4))} />
      <WasteStreamsCard establishmentId={establishment.id} manage={can.manageCompliance(me.role)} />
      <MeasuresCard scope={scope} manage={can.generatePlan(me.role)} />
      <TrainingCard scope={scope} currentYear={Number(obligations.as_of.slice(0, 4))} manage={can.generatePlan(me.role)} />
      <DossierCard establishmentId={establishment.id} currentYear={Number(obligations.as_of.slice(0, 4))} />
      <Group gap="sm" data-print-hide>
        {can.generatePlan(me.role) && (
          <Button
            leftSection={<IconFilePlus size={16} aria-hidden />}
            loading={generate.isPending}
            onClick={() => generate.mutate({ ...scope, lang })}
          >
            {t('plan.page.generate')}
          </Button>
        )}
        {plan && (
          <Button variant="default" leftSection={<IconPrinter size={16} aria-hidden />} onClick={() => window.print()}>
            {t('plan.page.print')}
          </Button>
        )}
      </Group>
      {plan ? (
        // On a phone the history goes under the document, which keeps the width it needs to be read.
        <Group align="flex-start" gap="lg" wrap="wrap">
          <PlanDocument plan={plan} establishment={establishment} testData={!livemode} />
          <Card withBorder padding="sm" miw={220} data-print-hide component="nav" aria-label={t('plan.page.history')}>
            <Text fw={600} size="sm" mb="xs">
              {t('plan.page.history')}
            </Text>
            <HistoryList plans={history.data} current={plan.id} />
          </Card>
        </Group>
      ) : (
        <Alert color="teal" variant="light" title={t('plan.page.emptyTitle')}>
          {can.generatePlan(me.role) ? t('plan.page.empty') : t('plan.page.emptyViewer')}
        </Alert>
      )}
    </Stack>
  );
}

function HistoryList({ plans, current }: { plans: { id: string; generated_at: string; total_kg: number }[]; current: string }) {
  const format = useFormat();
  const navigate = useNavigate();
  return (
    <Stack gap={2}>
      {plans.map((p) => (
        <NavLink
          key={p.id}
          component="button"
          onClick={() => void navigate({ to: '.', search: (prev) => ({ ...prev, plan: p.id }) })}
          label={format.dateTime(p.generated_at)}
          description={format.kg(p.total_kg)}
          color="gray"
          active={p.id === current}
          aria-current={p.id === current ? 'true' : undefined}
        />
      ))}
    </Stack>
  );
}

/**
 * The plan as a document: what a manager files and shows an inspector. It names the establishment
 * and its CIF (the tax id the plan is filed under), and a plan of test data carries a marker in both
 * languages, on screen and on paper, so a test printout is never taken for the real plan (the API's
 * Markdown document does the same).
 */
function PlanDocument({ plan, establishment, testData }: { plan: PreventionPlan; establishment: PlanEstablishment; testData: boolean }) {
  const { t } = useTranslation('plan');
  const format = useFormat();
  const shares = (title: string, items: PreventionPlan['by_stage']) => (
    <Stack gap="xs">
      <Title order={3} size="h4">
        {title}
      </Title>
      {items.length === 0 ? (
        <Text size="sm" c="dimmed">
          {t('plan.doc.none')}
        </Text>
      ) : (
        <Table striped withTableBorder>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{title}</Table.Th>
              <Table.Th ta="right">{t('plan.doc.kg')}</Table.Th>
              <Table.Th ta="right">{t('plan.doc.share')}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {items.map((i) => (
              <Table.Tr key={i.key}>
                <Table.Td>{i.label}</Table.Td>
                <Table.Td ta="right">{format.kg(i.kg)}</Table.Td>
                <Table.Td ta="right">{format.percent(i.share)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Stack>
  );
  const target = plan.target;
  return (
    <Card
      withBorder
      padding="xl"
      component="article"
      data-testid="plan-document"
      className="plan-document"
      style={{ flex: '1 1 320px', minWidth: 0 }}
      lang={plan.lang}
    >
      <Stack gap="lg">
        {testData && (
          <Alert
            color="orange"
            variant="outline"
            className="plan-test-marker"
            data-testid="plan-test-marker"
            title={t('plan.doc.testMarker')}
          >
            {t('plan.doc.testData')}
          </Alert>
        )}
        <Stack gap={4}>
          <Title order={2}>{t('plan.doc.title', { establishment: establishment.name })}</Title>
          {establishment.cif && (
            <Text size="sm" data-testid="plan-cif">
              {t('plan.doc.cif', { cif: establishment.cif })}
            </Text>
          )}
          <Text size="sm">{t('plan.doc.law')}</Text>
          <Text size="sm" c="dimmed">
            {t('plan.doc.period', {
              from: format.date(plan.period.from),
              to: format.date(plan.period.to),
              generated: format.dateTime(plan.generated_at),
            })}
          </Text>
          <Text size="sm" c="dimmed" data-testid="plan-version" style={{ overflowWrap: 'anywhere' }}>
            {plan.sha256
              ? t('plan.doc.version', { version: plan.version, sha256: plan.sha256 })
              : t('plan.doc.versionUnhashed', { version: plan.version })}
            {plan.previous &&
              ` ${t('plan.doc.previous', {
                at: format.dateTime(plan.previous.generated_at),
                from: format.kg(plan.previous.changes.total_kg.from),
                to: format.kg(plan.previous.changes.total_kg.to),
              })}`}
          </Text>
          <Text fw={600}>{t('plan.doc.total', { kg: format.kg(plan.total_kg), count: plan.total_records })}</Text>
        </Stack>
        {shares(t('plan.doc.byStage'), plan.by_stage)}
        {shares(t('plan.doc.byCategory'), plan.by_category)}
        {shares(t('plan.doc.byCause'), plan.by_cause)}
        {shares(t('plan.doc.byShift'), plan.by_shift)}
        <Stack gap="xs">
          <Title order={3} size="h4">
            {t('plan.doc.destinations')}
          </Title>
          <Table striped withTableBorder>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('plan.doc.order')}</Table.Th>
                <Table.Th>{t('plan.doc.destination')}</Table.Th>
                <Table.Th ta="right">{t('plan.doc.kg')}</Table.Th>
                <Table.Th ta="right">{t('plan.doc.share')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {plan.destinations.map((d) => (
                <Table.Tr key={d.key}>
                  <Table.Td>{d.orden}</Table.Td>
                  <Table.Td>{d.label}</Table.Td>
                  <Table.Td ta="right">{format.kg(d.kg)}</Table.Td>
                  <Table.Td ta="right">{format.percent(d.share)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
          <Text size="sm">{t('plan.doc.belowFeed', { kg: format.kg(plan.below_feed_kg) })}</Text>
        </Stack>
        <Stack gap="sm">
          <Title order={3} size="h4">
            {t('plan.doc.hotspots')}
          </Title>
          {plan.hotspots.length === 0 && (
            <Text size="sm" c="dimmed">
              {t('plan.doc.none')}
            </Text>
          )}
          {plan.hotspots.map((h, i) => (
            <Stack gap={4} key={`${h.food_category}-${h.waste_stage}`}>
              <Text fw={600}>
                {t('plan.doc.hotspot', {
                  n: i + 1,
                  category: h.food_category_label,
                  stage: h.waste_stage_label,
                  kg: format.kg(h.kg),
                  share: format.percent(h.share),
                })}
              </Text>
              <List size="sm" spacing={2}>
                {h.measures.map((m) => (
                  <List.Item key={m}>{m}</List.Item>
                ))}
              </List>
            </Stack>
          ))}
        </Stack>
        <Stack gap="xs">
          <Title order={3} size="h4">
            {t('plan.doc.target')}
          </Title>
          <Text size="sm">{target.note}</Text>
          {target.baseline_kg !== null && target.baseline_year !== null && (
            <Text size="sm" fw={600}>
              {t('plan.doc.targetFigures', {
                year: target.baseline_year,
                baseline: format.kg(target.baseline_kg),
                target: format.kg(target.target_2030_kg ?? 0),
              })}
            </Text>
          )}
        </Stack>
        {plan.donations && <DonationsSection donations={plan.donations} />}
        {plan.hierarchy && <HierarchySection hierarchy={plan.hierarchy} />}
        {plan.follow_up && <FollowUpSection followUp={plan.follow_up} />}
      </Stack>
    </Card>
  );
}

/** The plan's follow-up as it stood when it was generated: its review date, each measure's owner, due date and status, and the period's training. */
function FollowUpSection({ followUp }: { followUp: NonNullable<PreventionPlan['follow_up']> }) {
  const { t } = useTranslation('plan');
  const format = useFormat();
  return (
    <Stack gap="xs" data-testid="plan-follow-up">
      <Title order={3} size="h4">
        {t('plan.followUp.document.title')}
      </Title>
      <Text size="sm" fw={600}>
        {t('plan.followUp.document.reviewBy', { date: format.date(followUp.review_by) })}
      </Text>
      {followUp.measures.length > 0 && (
        <Table withTableBorder aria-label={t('plan.followUp.document.title')}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t('plan.followUp.columns.measure')}</Table.Th>
              <Table.Th>{t('plan.followUp.columns.owner')}</Table.Th>
              <Table.Th>{t('plan.followUp.columns.due')}</Table.Th>
              <Table.Th>{t('plan.followUp.columns.status')}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {followUp.measures.map((m) => (
              <Table.Tr key={m.measure_id}>
                <Table.Td>{m.text}</Table.Td>
                <Table.Td>{m.owner ?? t('plan.followUp.document.nobody')}</Table.Td>
                <Table.Td style={{ whiteSpace: 'nowrap' }}>{m.due_on ? format.date(m.due_on) : '—'}</Table.Td>
                <Table.Td>
                  <MeasureStatusBadge status={m.status} />
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      <Text size="sm" fw={600}>
        {t('plan.followUp.document.training')}
      </Text>
      {followUp.training.length === 0 ? (
        <Text size="sm">{t('plan.followUp.document.noTraining')}</Text>
      ) : (
        <Table withTableBorder aria-label={t('plan.followUp.document.training')}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t('plan.training.columns.date')}</Table.Th>
              <Table.Th>{t('plan.training.columns.topic')}</Table.Th>
              <Table.Th>{t('plan.training.columns.trainer')}</Table.Th>
              <Table.Th ta="right">{t('plan.training.columns.attendees')}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {followUp.training.map((s) => (
              <Table.Tr key={`${s.held_on}-${s.topic}`}>
                <Table.Td style={{ whiteSpace: 'nowrap' }}>{format.date(s.held_on)}</Table.Td>
                <Table.Td>{s.topic}</Table.Td>
                <Table.Td>{s.trainer ?? '—'}</Table.Td>
                <Table.Td ta="right">{s.attendees}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Stack>
  );
}

/** The order of priorities kept in writing when the plan was generated (Ley 1/2025 art. 5.2): the year's counts, by reason. */
function HierarchySection({ hierarchy }: { hierarchy: NonNullable<PreventionPlan['hierarchy']> }) {
  const { t } = useTranslation('plan');
  const format = useFormat();
  return (
    <Stack gap="xs" data-testid="plan-hierarchy">
      <Title order={3} size="h4">
        {t('plan.doc.hierarchy.title', { year: hierarchy.year })}
      </Title>
      {hierarchy.below_best.records === 0 ? (
        <Text size="sm">{t('plan.doc.hierarchy.none')}</Text>
      ) : (
        <>
          <Text size="sm">
            {t('plan.doc.hierarchy.counts', {
              records: hierarchy.below_best.records,
              kg: format.kg(hierarchy.below_best.kg),
              justified: hierarchy.justified.records,
              justifiedKg: format.kg(hierarchy.justified.kg),
            })}
          </Text>
          {hierarchy.by_reason.length > 0 && (
            <Table withTableBorder>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{t('plan.doc.hierarchy.reason')}</Table.Th>
                  <Table.Th ta="right">{t('plan.doc.hierarchy.records')}</Table.Th>
                  <Table.Th ta="right">{t('plan.doc.kg')}</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {hierarchy.by_reason.map((r) => (
                  <Table.Tr key={r.reason}>
                    <Table.Td>{r.label}</Table.Td>
                    <Table.Td ta="right">{r.records}</Table.Td>
                    <Table.Td ta="right">{format.kg(r.kg)}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          )}
          {hierarchy.unjustified_count > 0 && (
            <Text size="sm" fw={600}>
              {t('plan.doc.hierarchy.unjustified', { count: hierarchy.unjustified_count })}
            </Text>
          )}
        </>
      )}
    </Stack>
  );
}

/** The plan's donations (Ley 1/2025 art. 6 and 7): agreements, kilos, refusals and where they went. */
function DonationsSection({ donations }: { donations: NonNullable<PreventionPlan['donations']> }) {
  const { t } = useTranslation('plan');
  const format = useFormat();
  return (
    <Stack gap="xs" data-testid="plan-donations">
      <Title order={3} size="h4">
        {t('plan.doc.donations.title')}
      </Title>
      {donations.agreements.length === 0 ? (
        <Text size="sm">{t('plan.doc.donations.noAgreements')}</Text>
      ) : (
        <Table striped withTableBorder>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t('plan.doc.donations.entity')}</Table.Th>
              <Table.Th>{t('plan.doc.donations.validity')}</Table.Th>
              <Table.Th>{t('plan.doc.donations.status')}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {donations.agreements.map((a) => (
              <Table.Tr key={a.id}>
                <Table.Td>{a.entity_name}</Table.Td>
                <Table.Td>
                  {format.date(a.valid_from)} – {format.date(a.valid_until)}
                </Table.Td>
                <Table.Td>{t(`plan.doc.donations.statuses.${a.status}`)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      {donations.justification && (
        <Alert color="orange" variant="light" title={t('plan.doc.donations.justification')} data-testid="plan-donation-justification">
          {donations.justification}
        </Alert>
      )}
      <Text size="sm">
        {t('plan.doc.donations.donated', { kg: format.kg(donations.donated_kg), share: format.percent(donations.donated_share) })}
      </Text>
      <Text size="sm">
        {t('plan.doc.donations.offered', {
          offered: format.kg(donations.offered_kg),
          accepted: format.kg(donations.accepted_kg),
          refused: format.kg(donations.refused_kg),
        })}
      </Text>
      {donations.refusals.length > 0 && (
        <Table striped withTableBorder>
          <Table.Caption>{t('plan.doc.donations.refusals')}</Table.Caption>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t('plan.doc.donations.date')}</Table.Th>
              <Table.Th>{t('plan.doc.donations.entity')}</Table.Th>
              <Table.Th>{t('plan.doc.donations.food')}</Table.Th>
              <Table.Th ta="right">{t('plan.doc.kg')}</Table.Th>
              <Table.Th>{t('plan.doc.donations.reason')}</Table.Th>
              <Table.Th>{t('plan.doc.donations.sentTo')}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {donations.refusals.map((r) => (
              <Table.Tr key={`${r.donation_id} ${r.description} ${r.reason}`}>
                <Table.Td>{format.date(r.offered_at.slice(0, 10))}</Table.Td>
                <Table.Td>{r.entity_name}</Table.Td>
                <Table.Td>{r.description}</Table.Td>
                <Table.Td ta="right">{format.kg(r.kg)}</Table.Td>
                <Table.Td>{r.reason}</Table.Td>
                <Table.Td>{r.rerouted_to_label ?? t('plan.doc.donations.waiting')}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Stack>
  );
}
