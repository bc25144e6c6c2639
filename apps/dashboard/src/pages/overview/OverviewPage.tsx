import { Alert, Badge, Card, Code, Group, List, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { type AnalyticsResult, keyPrefix } from '@merma/schema';
import type { DashboardBenchmark, PeriodComparison, SpikeAlert } from '@merma/schema/dashboard';
import { IconArrowDownRight, IconArrowUpRight, IconMinus } from '@tabler/icons-react';
import { useQuery, useSuspenseQuery } from '@tanstack/react-query';
import { getRouteApi, useNavigate } from '@tanstack/react-router';
import { Suspense, useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { DestinationBars, KgBars, TrendChart } from '../../components/charts/index.tsx';
import { ExpiringAgreementsAlert } from '../../components/ExpiringAgreementsAlert.tsx';
import { AnchorLink } from '../../components/links.tsx';
import { NoEstablishment } from '../../components/NoEstablishment.tsx';
import { Page } from '../../components/Page.tsx';
import { Segmented } from '../../components/Segmented.tsx';
import { useFormat } from '../../lib/format.ts';
import { can } from '../../lib/permissions.ts';
import { useScope } from '../../lib/scope.ts';
import { OVERVIEW_RANGES, type OverviewRange } from '../../lib/search.ts';
import { byKg, overviewQuery, todayIn } from '../../lib/waste.ts';
import { trpc } from '../../trpc.ts';

const route = getRouteApi('/app/overview');

/**
 * What a kitchen or sustainability manager looks at first: kg wasted today, this week and this
 * month against the same stretch before; the trend; where it comes from (category, cause, stage);
 * where it goes, in the order of the Ley 1/2025 hierarchy, with the recovery rate; the sector
 * comparison; and the spikes of the last two weeks. Figures come from the API's own analytics.
 * Above them, when there are any, the donation agreements covering the establishment that end
 * within 30 days (Ley 1/2025: donating needs one in force).
 */
export function OverviewPage() {
  const { t } = useTranslation();
  const { establishment } = useScope();
  return (
    <Page title={t('overview.title')} description={t('overview.description')}>
      {establishment ? <Overview timezone={establishment.timezone} establishmentId={establishment.id} /> : <NoEstablishment />}
    </Page>
  );
}

function Overview({ establishmentId, timezone }: { establishmentId: string; timezone: string }) {
  const { t } = useTranslation();
  const { livemode } = useScope();
  const { range } = route.useSearch();
  const navigate = useNavigate();
  const scope = { establishment_id: establishmentId, livemode };
  const query = overviewQuery(range, todayIn(timezone));
  const { data: analytics } = useSuspenseQuery(trpc.analytics.get.queryOptions({ ...scope, ...query }));
  const { data: periods } = useSuspenseQuery(trpc.analytics.periods.queryOptions(scope));

  return (
    <Stack gap="lg">
      <ExpiringAgreements establishmentId={establishmentId} />
      <SimpleGrid cols={{ base: 1, sm: 3 }}>
        {periods.map((p) => (
          <PeriodCard key={p.period} comparison={p} />
        ))}
      </SimpleGrid>
      <Group justify="space-between" wrap="wrap">
        <Title order={2} size="h3">
          {t('overview.rangeHeading')}
        </Title>
        <Segmented
          aria-label={t('overview.range')}
          value={range}
          onChange={(value) => void navigate({ to: '.', search: (prev) => ({ ...prev, range: value as OverviewRange }) })}
          data={OVERVIEW_RANGES.map((r) => ({ value: r, label: t(`overview.ranges.${r}`) }))}
        />
      </Group>
      {analytics.total_records === 0 ? <NoRecords /> : <Charts analytics={analytics} />}
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <Benchmark scope={scope} />
        <Alerts scope={scope} />
      </SimpleGrid>
    </Stack>
  );
}

/**
 * The establishment's agreements ending within 30 days, with a link to them; nothing while they load
 * or when there are none (the page waits neither for them nor for the words that say them).
 */
function ExpiringAgreements({ establishmentId }: { establishmentId: string }) {
  const { data } = useQuery(trpc.donations.agreements.queryOptions({ establishment_id: establishmentId, status: 'expiring' }));
  if (!data?.some((a) => a.expires_in_days !== null)) return null;
  return (
    <Suspense fallback={null}>
      <ExpiringAgreementsAlert agreements={data}>
        <AgreementsLink establishmentId={establishmentId} />
      </ExpiringAgreementsAlert>
    </Suspense>
  );
}

function AgreementsLink({ establishmentId }: { establishmentId: string }) {
  const { t } = useTranslation('donations');
  return (
    <AnchorLink to="/donations" search={{ covers: establishmentId }} size="sm" display="block" mt="xs">
      {t('donations.expiring.link')}
    </AnchorLink>
  );
}

function PeriodCard({ comparison }: { comparison: PeriodComparison }) {
  const { t } = useTranslation();
  const format = useFormat();
  const { kg, previous_kg: previous } = comparison;
  const change = previous > 0 ? (kg - previous) / previous : null;
  const Icon = change === null || change === 0 ? IconMinus : change > 0 ? IconArrowUpRight : IconArrowDownRight;
  // Less waste is good news: a fall is green, a rise red.
  const color = change === null || change === 0 ? 'gray' : change > 0 ? 'red' : 'teal';
  return (
    <Card withBorder padding="md" component="section" aria-labelledby={`period-${comparison.period}`}>
      <Text size="sm" c="dimmed" id={`period-${comparison.period}`}>
        {t(`overview.periods.${comparison.period}`)}
      </Text>
      <Text fz={28} fw={700} data-testid={`period-${comparison.period}-kg`}>
        {format.kg(kg)}
      </Text>
      {/* The badge is never squeezed into an ellipsis ("34,…"): it keeps its width, its text wraps
          when it is wider than the card, and the previous period's line goes below when they do not fit. */}
      <Group gap={4} wrap="wrap">
        <Badge
          color={color}
          variant="light"
          leftSection={<Icon size={14} aria-hidden />}
          maw="100%"
          h="auto"
          styles={{ root: { flexShrink: 0 }, label: { whiteSpace: 'normal', overflow: 'visible' } }}
        >
          {change === null ? t('overview.noPrevious') : format.percent(Math.abs(change))}
        </Badge>
        <Text size="xs" c="dimmed">
          {t(`overview.previous.${comparison.period}`, { kg: format.kg(previous) })}
        </Text>
      </Group>
    </Card>
  );
}

/** A chart's figures: one row per bar or point, its kg and its share of the total. */
type Figure = { label: string; kg: number };

/**
 * A chart with its figures. A chart's values are otherwise read by hovering, which a phone cannot
 * do and a screen reader does not reach: "Show as" switches the card between the chart and a table
 * of the same figures (name, kg, share of the total), a real table with headers that assistive
 * technology reads. The bar charts also print each bar's kg beside it.
 */
function ChartCard({
  title,
  children,
  footer,
  figures,
  testId,
}: {
  title: string;
  children: React.ReactNode;
  footer?: React.ReactNode;
  figures: Figure[];
  testId: string;
}) {
  const { t } = useTranslation();
  const format = useFormat();
  const [view, setView] = useState<'chart' | 'table'>('chart');
  const captionId = useId();
  const total = figures.reduce((sum, f) => sum + f.kg, 0);
  return (
    <Card withBorder padding="md" component="figure" m={0} aria-labelledby={captionId} data-testid={testId}>
      <Group justify="space-between" align="flex-start" wrap="wrap" gap="xs" mb="sm">
        <Text component="figcaption" fw={600} id={captionId}>
          {title}
        </Text>
        <Segmented
          size="xs"
          aria-label={`${t('overview.figures.label')}: ${title}`}
          value={view}
          onChange={(v) => setView(v as 'chart' | 'table')}
          data={[
            { value: 'chart', label: t('overview.figures.chart') },
            { value: 'table', label: t('overview.figures.table') },
          ]}
        />
      </Group>
      {view === 'chart' ? (
        children
      ) : (
        <Table.ScrollContainer minWidth={280}>
          <Table striped verticalSpacing={4} aria-labelledby={captionId}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('overview.figures.name')}</Table.Th>
                <Table.Th ta="right">{t('overview.figures.kg')}</Table.Th>
                <Table.Th ta="right">{t('overview.figures.share')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {figures.map((f) => (
                <Table.Tr key={f.label}>
                  <Table.Td>{f.label}</Table.Td>
                  <Table.Td ta="right">{format.kgPrecise(f.kg)}</Table.Td>
                  <Table.Td ta="right">{total > 0 ? format.percent(f.kg / total) : '—'}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {footer}
    </Card>
  );
}

function Charts({ analytics }: { analytics: AnalyticsResult }) {
  const { t } = useTranslation();
  const format = useFormat();
  const { data: catalog } = useSuspenseQuery(trpc.catalog.get.queryOptions());
  const trend = analytics.trend.map((p) => ({ label: format.period(p.period), kg: p.total_kg }));
  const categories = byKg(analytics.by_category).map(([code, kg]) => ({ label: t(`categories.${code}` as 'categories.others'), kg }));
  const causeName = (id: string) => (id === 'none' ? t('overview.noCause') : (catalog.causes.find((c) => c.id === id)?.nombre ?? id));
  const causes = byKg(analytics.by_cause).map(([id, kg]) => ({ label: causeName(id), kg }));
  const stages = byKg(analytics.by_stage).map(([stage, kg]) => ({ label: t(`stages.${stage}` as 'stages.none'), kg }));
  // The hierarchy's order (prevention first, landfill last), every destination shown, 0 included.
  const destinations = catalog.destinations.map((d) => {
    const kg = analytics.by_destino[d.id] ?? 0;
    return { label: `${d.orden}. ${d.nombre}`, recovered: d.es_recuperacion ? kg : 0, lost: d.es_recuperacion ? 0 : kg };
  });
  const destinationFigures = destinations.map((d) => ({ label: d.label, kg: d.recovered + d.lost }));

  return (
    <Stack gap="lg">
      <ChartCard
        testId="chart-trend"
        figures={trend}
        title={t('overview.trend', { total: format.kg(analytics.total_kg), count: analytics.total_records })}
        footer={
          <Text size="sm" c="dimmed" mt="xs" data-testid="range-total">
            {t('overview.rangeTotal', { kg: format.kg(analytics.total_kg), count: analytics.total_records })}
          </Text>
        }
      >
        <TrendChart data={trend} />
      </ChartCard>
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <ChartCard testId="chart-category" figures={categories} title={t('overview.byCategory')}>
          <KgBars data={categories} />
        </ChartCard>
        <ChartCard
          testId="chart-destination"
          figures={destinationFigures}
          title={t('overview.byDestination')}
          footer={
            <Text size="sm" mt="xs">
              {analytics.recovery_rate === null
                ? t('overview.recoveryUnknown')
                : t('overview.recoveryRate', { rate: format.percent(analytics.recovery_rate) })}
            </Text>
          }
        >
          <DestinationBars data={destinations} />
        </ChartCard>
        <ChartCard testId="chart-cause" figures={causes} title={t('overview.byCause')}>
          <KgBars data={causes} />
        </ChartCard>
        <ChartCard testId="chart-stage" figures={stages} title={t('overview.byStage')}>
          <KgBars data={stages} />
        </ChartCard>
      </SimpleGrid>
    </Stack>
  );
}

/** No records in the range: how to send the first one. */
function NoRecords() {
  const { t } = useTranslation();
  const { me, mode } = useScope();
  // The example works as shown: this server's address and the key prefix of the mode on screen.
  const example = t('overview.empty.example', { url: me.public_url, prefix: keyPrefix(mode) });
  return (
    <Alert color="teal" variant="light" title={t('overview.empty.title')}>
      <Stack gap="xs">
        <Text size="sm">{t('overview.empty.body')}</Text>
        {/* Wrapped, not scrolled: a one-line command would widen the alert past a phone's screen. */}
        <Code block style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
          {example}
        </Code>
        {can.viewKeys(me.role) ? (
          // The alert's own text colour: the link colour is under AA on its light teal.
          <AnchorLink to="/keys" c="var(--alert-color)" underline="always">
            {t('overview.empty.keys')}
          </AnchorLink>
        ) : (
          <Text size="sm">{t('overview.empty.askDeveloper')}</Text>
        )}
      </Stack>
    </Alert>
  );
}

function Benchmark({ scope }: { scope: { establishment_id: string; livemode: boolean } }) {
  const { t } = useTranslation();
  const format = useFormat();
  const { data } = useSuspenseQuery(trpc.analytics.benchmark.queryOptions(scope));
  return (
    <Card withBorder padding="md" component="section" aria-labelledby="benchmark-title">
      <Title order={2} size="h4" id="benchmark-title" mb="sm">
        {t('overview.benchmark.title')}
      </Title>
      <BenchmarkBody data={data} format={format} />
    </Card>
  );
}

function BenchmarkBody({ data, format }: { data: DashboardBenchmark; format: ReturnType<typeof useFormat> }) {
  const { t } = useTranslation();
  if (!data.available) return <Text size="sm">{t('overview.benchmark.planRequired')}</Text>;
  const r = data.result;
  const sector = t(`sectors.${r.sector}` as 'sectors.horeca');
  return (
    <Stack gap="xs">
      {/* Yours is averaged over the days you have recorded within the window (days_covered), which the sentence says. */}
      <Text size="sm" data-testid="benchmark-yours">
        {r.days_covered === 0
          ? t('overview.benchmark.yoursNone', { days: r.window_days })
          : t(r.days_covered >= r.window_days ? 'overview.benchmark.yoursWindow' : 'overview.benchmark.yours', {
              kg: format.kg(r.your_avg_kg_per_day),
              days: r.days_covered,
            })}
      </Text>
      {r.sector_avg_kg_per_day === null || r.percentile === null ? (
        <Text size="sm" c="dimmed">
          {t('overview.benchmark.withheld', { count: r.sample_size, sector })}
        </Text>
      ) : (
        <>
          <Text size="sm">{t('overview.benchmark.sector', { kg: format.kg(r.sector_avg_kg_per_day), sector, count: r.sample_size })}</Text>
          <Text size="sm" fw={600}>
            {t('overview.benchmark.percentile', { percentile: format.number(r.percentile) })}
          </Text>
        </>
      )}
    </Stack>
  );
}

function Alerts({ scope }: { scope: { establishment_id: string; livemode: boolean } }) {
  const { t } = useTranslation();
  const { data } = useSuspenseQuery(trpc.analytics.alerts.queryOptions(scope));
  return (
    <Card withBorder padding="md" component="section" aria-labelledby="alerts-title">
      <Title order={2} size="h4" id="alerts-title" mb="sm">
        {t('overview.alerts.title')}
      </Title>
      {data.length === 0 ? (
        <Text size="sm" c="dimmed">
          {t('overview.alerts.empty')}
        </Text>
      ) : (
        <List spacing="xs" size="sm">
          {data.map((a) => (
            <AlertItem key={a.id} alert={a} />
          ))}
        </List>
      )}
    </Card>
  );
}

function AlertItem({ alert }: { alert: SpikeAlert }) {
  const { t } = useTranslation();
  const format = useFormat();
  return (
    <List.Item>
      {t('overview.alerts.item', {
        day: format.longDay(alert.day),
        category: t(`categories.${alert.food_category}`),
        kg: format.kg(alert.total_kg),
        baseline: format.kg(alert.baseline_kg),
      })}
    </List.Item>
  );
}
