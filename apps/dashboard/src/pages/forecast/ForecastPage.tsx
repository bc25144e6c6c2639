import {
  Alert,
  Anchor,
  Button,
  Card,
  Group,
  SegmentedControl,
  Select,
  SimpleGrid,
  Stack,
  Table,
  Text,
  Title,
  VisuallyHidden,
} from '@mantine/core';
import type { DemandPrediction, Prediction, ProductDemand } from '@merma/schema';
import type { DemandForecastInput } from '@merma/schema/dashboard';
import { useQuery, useSuspenseQuery } from '@tanstack/react-query';
import { getRouteApi, useNavigate } from '@tanstack/react-router';
import type { TFunction } from 'i18next';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { Area, CartesianGrid, ComposedChart, Legend, Line, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { EmptyCell } from '../../components/DataTable.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { AnchorLink } from '../../components/links.tsx';
import { NoEstablishment } from '../../components/NoEstablishment.tsx';
import { Page } from '../../components/Page.tsx';
import { PagePending } from '../../components/states.tsx';
import { useFormat } from '../../lib/format.ts';
import { useScope } from '../../lib/scope.ts';
import { CATEGORIES, isCategory } from '../../lib/waste.ts';
import { trpc } from '../../trpc.ts';

const route = getRouteApi('/app/forecast');

/**
 * The next 1–4 weeks of waste, day by day, with the 95 % prediction interval drawn as a band, and
 * how the forecast is made and how far off it was over the last 14 days (its backtest). The same
 * prediction as `GET /api/v1/predict`. Below it, tomorrow's production: per product sold, the
 * expected sales and how much to prepare (`GET /api/v1/predict?type=demand`).
 */
export function ForecastPage() {
  const { t } = useTranslation();
  const { establishment } = useScope();
  return (
    <Page title={t('forecast.title')} description={t('forecast.description')}>
      {establishment ? <Forecast establishmentId={establishment.id} /> : <NoEstablishment />}
    </Page>
  );
}

function Forecast({ establishmentId }: { establishmentId: string }) {
  const { t } = useTranslation();
  const { livemode } = useScope();
  const search = route.useSearch();
  const navigate = useNavigate();
  const input = {
    establishment_id: establishmentId,
    livemode,
    horizon: search.weeks * 7,
    ...(isCategory(search.category) ? { food_category: search.category } : {}),
  };
  const { data } = useSuspenseQuery(trpc.insights.forecast.queryOptions(input));
  return (
    <Stack gap="lg">
      <Group gap="md" align="flex-end" wrap="wrap">
        <Stack gap={4}>
          <Text size="sm" fw={500} id="forecast-horizon">
            {t('forecast.horizon')}
          </Text>
          <SegmentedControl
            aria-labelledby="forecast-horizon"
            value={String(search.weeks)}
            onChange={(v) => void navigate({ to: '.', search: (prev) => ({ ...prev, weeks: Number(v) }) })}
            data={[1, 2, 3, 4].map((w) => ({ value: String(w), label: t('forecast.weeks', { count: w }) }))}
          />
        </Stack>
        <Select
          label={t('forecast.category')}
          placeholder={t('forecast.allCategories')}
          clearable
          value={isCategory(search.category) ? search.category : null}
          onChange={(v) => void navigate({ to: '.', search: (prev) => ({ ...prev, category: v ?? undefined }) })}
          data={CATEGORIES.map((c) => ({ value: c, label: t(`categories.${c}`) }))}
        />
      </Group>
      {data.history_days === 0 ? (
        <NoForecast filtered={isCategory(search.category)} />
      ) : (
        <>
          <Method prediction={data} />
          <ForecastChart prediction={data} />
        </>
      )}
      <Production
        input={{
          establishment_id: establishmentId,
          livemode,
          horizon: 1,
          ...(isCategory(search.category) ? { food_category: search.category } : {}),
        }}
      />
    </Stack>
  );
}

function Method({ prediction }: { prediction: Prediction }) {
  const { t } = useTranslation();
  const format = useFormat();
  const method = prediction.method.startsWith('holt-winters')
    ? t('forecast.methods.holtWinters')
    : prediction.method.startsWith('mean')
      ? t('forecast.methods.mean')
      : t('forecast.methods.none');
  const total = prediction.points.reduce((sum, p) => sum + p.predicted_kg, 0);
  return (
    <SimpleGrid cols={{ base: 1, sm: 3 }}>
      <Card withBorder padding="md">
        <Text size="sm" c="dimmed">
          {t('forecast.expected', { count: prediction.points.length })}
        </Text>
        <Text fz={28} fw={700}>
          {format.kg(total)}
        </Text>
      </Card>
      <Card withBorder padding="md">
        <Text size="sm" c="dimmed">
          {t('forecast.method')}
        </Text>
        <Text size="sm" fw={600}>
          {method}
        </Text>
        <Text size="xs" c="dimmed">
          {t('forecast.history', { count: prediction.history_days })}
        </Text>
      </Card>
      <Card withBorder padding="md">
        <Text size="sm" c="dimmed">
          {t('forecast.backtest', { days: prediction.backtest.days })}
        </Text>
        <Text size="sm" fw={600}>
          {prediction.backtest.value === null ? t('forecast.noBacktest') : t('forecast.mae', { kg: format.kg(prediction.backtest.value) })}
        </Text>
      </Card>
    </SimpleGrid>
  );
}

function ForecastChart({ prediction }: { prediction: Prediction }) {
  const { t } = useTranslation();
  const format = useFormat();
  const data = prediction.points.map((p) => ({
    day: format.day(p.date),
    predicted: p.predicted_kg,
    interval: [p.lower, p.upper] as [number, number],
  }));
  return (
    <Card withBorder padding="md" component="figure" m={0}>
      <Text component="figcaption" fw={600} mb="sm">
        {t('forecast.chartTitle')}
      </Text>
      <div style={{ width: '100%', height: 300 }} aria-hidden>
        <ResponsiveContainer>
          <ComposedChart data={data} margin={{ top: 8, right: 16, bottom: 8, left: 8 }} accessibilityLayer={false}>
            <CartesianGrid strokeDasharray="3 3" vertical={false} />
            <XAxis dataKey="day" fontSize={12} />
            <YAxis fontSize={12} tickFormatter={(v: number) => format.kg(v)} width={80} />
            <Tooltip
              formatter={(value) => (Array.isArray(value) ? value.map((v) => format.kg(Number(v))).join(' – ') : format.kg(Number(value)))}
            />
            <Legend />
            <Area
              dataKey="interval"
              name={t('forecast.interval')}
              stroke="none"
              fill="var(--mantine-color-teal-2)"
              isAnimationActive={false}
            />
            <Line
              dataKey="predicted"
              name={t('forecast.predicted')}
              stroke="var(--mantine-color-teal-8)"
              strokeWidth={2}
              dot={false}
              isAnimationActive={false}
            />
          </ComposedChart>
        </ResponsiveContainer>
      </div>
      <Table mt="md" striped>
        <Table.Caption>
          <VisuallyHidden>{t('forecast.tableCaption')}</VisuallyHidden>
        </Table.Caption>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{t('forecast.columns.day')}</Table.Th>
            <Table.Th>{t('forecast.columns.predicted')}</Table.Th>
            <Table.Th>{t('forecast.columns.interval')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {prediction.points.map((p) => (
            <Table.Tr key={p.date}>
              <Table.Td>{format.longDay(p.date)}</Table.Td>
              <Table.Td>{format.kg(p.predicted_kg)}</Table.Td>
              <Table.Td>{t('forecast.intervalValue', { lower: format.kg(p.lower), upper: format.kg(p.upper) })}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Card>
  );
}

/**
 * Tomorrow's production (`GET /api/v1/predict?type=demand`, only its first day): per product sold,
 * most sold first, the expected sales, the quantity advised to prepare and the share of days it
 * covers, and what following the advice would have done over the last 4 weeks. Loaded apart from
 * the waste forecast, so that one still shows while this loads or if it fails.
 */
function Production({ input }: { input: DemandForecastInput }) {
  const { t } = useTranslation();
  const { data, error, isPending, refetch, isRefetching } = useQuery(trpc.insights.demand.queryOptions(input));
  const { language } = useFormat();
  const tomorrow = data?.products[0]?.points[0]?.date;
  // The day with its weekday ("miércoles, 25 de noviembre"): what a kitchen plans by.
  const day = useMemo(
    () => new Intl.DateTimeFormat(language, { weekday: 'long', day: 'numeric', month: 'long', timeZone: 'UTC' }),
    [language],
  );
  return (
    <Card withBorder padding="md" component="section" aria-labelledby="production-title">
      <Stack gap="sm">
        <Stack gap={4}>
          <Title order={2} size="h4" id="production-title">
            {t('forecast.demand.title')}
          </Title>
          {tomorrow && (
            <Text size="sm" fw={600}>
              {t('forecast.demand.for', { date: day.format(new Date(`${tomorrow}T12:00:00Z`)) })}
            </Text>
          )}
          <Text size="sm" c="dimmed" maw={720}>
            {t('forecast.demand.description')}
          </Text>
        </Stack>
        {isPending ? (
          <PagePending />
        ) : error ? (
          <ErrorAlert error={error}>
            <Button mt="sm" variant="light" color="red" size="xs" loading={isRefetching} onClick={() => void refetch()}>
              {t('common.retry')}
            </Button>
          </ErrorAlert>
        ) : data.products.length === 0 ? (
          <NoSales filtered={input.food_category !== undefined} />
        ) : (
          <ProductionTable prediction={data} />
        )}
      </Stack>
    </Card>
  );
}

function ProductionTable({ prediction }: { prediction: DemandPrediction }) {
  const { t } = useTranslation();
  const quantity = useQuantity();
  return (
    <>
      {/* Scrolls sideways on a narrow screen: focusable, so that it scrolls from the keyboard too. */}
      <Table.ScrollContainer
        minWidth={900}
        type="native"
        pos="relative"
        tabIndex={0}
        role="region"
        aria-label={t('forecast.demand.tableCaption')}
        className="mantine-focus-auto"
      >
        <Table striped verticalSpacing="sm">
          <Table.Caption>
            <VisuallyHidden>{t('forecast.demand.tableCaption')}</VisuallyHidden>
          </Table.Caption>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t('forecast.demand.columns.product')}</Table.Th>
              <Table.Th ta="right">{t('forecast.demand.columns.advised')}</Table.Th>
              <Table.Th ta="right">{t('forecast.demand.columns.expected')}</Table.Th>
              <Table.Th>{t('forecast.demand.columns.coverage')}</Table.Th>
              <Table.Th>{t('forecast.demand.columns.avoided')}</Table.Th>
              <Table.Th>{t('forecast.demand.columns.shortDays')}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {prediction.products.map((p) => (
              <ProductRow key={p.product_id} product={p} quantity={quantity} />
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      <Text size="xs" c="dimmed">
        {t('forecast.demand.footnote')}
      </Text>
    </>
  );
}

type Quantity = (value: number, unit: ProductDemand['unit']) => string;

/** A quantity in a product's unit: kg, or units to one decimal (`12,5 u.`). */
function useQuantity(): Quantity {
  const { t } = useTranslation();
  const format = useFormat();
  return useMemo(() => {
    const units = new Intl.NumberFormat(format.language, { maximumFractionDigits: 1 });
    return (value, unit) => (unit === 'kg' ? format.kg(value) : t('forecast.demand.units', { value: units.format(value) }));
  }, [format, t]);
}

function ProductRow({ product, quantity }: { product: ProductDemand; quantity: Quantity }) {
  const { t } = useTranslation();
  const format = useFormat();
  const tomorrow = product.points[0];
  const { advice } = product;
  const past = advice.last_4_weeks;
  const notes = product.notes.map((note) => noteText(note, product, t));
  return (
    <Table.Tr>
      <Table.Td>
        <Text size="sm" fw={600}>
          {product.product_name}
        </Text>
        {notes.map((note) => (
          <Text key={note} size="xs" c="dimmed" maw={200}>
            {note}
          </Text>
        ))}
      </Table.Td>
      {/* What to prepare comes right after the product: on a phone it is what shows without scrolling. */}
      <Table.Td ta="right">
        {tomorrow ? (
          <Text fz="lg" fw={700} data-testid="demand-advised">
            {quantity(tomorrow.advised, product.unit)}
          </Text>
        ) : (
          <EmptyCell />
        )}
      </Table.Td>
      <Table.Td ta="right">{tomorrow ? quantity(tomorrow.expected, product.unit) : <EmptyCell />}</Table.Td>
      <Table.Td>
        <Text size="sm">{t('forecast.demand.coverage', { percent: format.percent(advice.quantile) })}</Text>
        {advice.waste_share !== null && advice.waste_share > 0 && (
          <Text size="xs" c="dimmed">
            {t('forecast.demand.wasteShare', { percent: format.percent(advice.waste_share) })}
          </Text>
        )}
      </Table.Td>
      <Table.Td>
        <Avoided kg={past.avoided_kg} pct={past.avoided_pct} />
      </Table.Td>
      <Table.Td>
        {past.days === 0 ? (
          <EmptyCell />
        ) : (
          <>
            <Text size="sm">{t('forecast.demand.shortDays', { short: past.short_days, count: past.days })}</Text>
            {past.short_days > 0 && (
              <Text size="xs" c="dimmed">
                {t('forecast.demand.shortQuantity', { quantity: quantity(past.short_quantity, product.unit) })}
              </Text>
            )}
          </>
        )}
      </Table.Td>
    </Table.Tr>
  );
}

/** Waste avoided over the last 4 weeks had the advice been followed; more waste said as such. */
function Avoided({ kg, pct }: { kg: number | null; pct: number | null }) {
  const { t } = useTranslation();
  const format = useFormat();
  if (kg === null) return <EmptyCell />;
  if (kg < 0) {
    return (
      <Text size="sm" c="red.9">
        {t('forecast.demand.worse', { kg: format.kg(-kg) })}
      </Text>
    );
  }
  return (
    <Text size="sm" fw={kg > 0 ? 600 : undefined} c={kg > 0 ? 'teal.9' : undefined}>
      {pct === null ? format.kg(kg) : t('forecast.demand.avoided', { kg: format.kg(kg), percent: format.percent(pct / 100) })}
    </Text>
  );
}

/** A note of the server, by its code, in the reader's language (its English message for a code this page does not know). */
function noteText(note: ProductDemand['notes'][number], product: ProductDemand, t: TFunction): string {
  switch (note.code) {
    case 'short_history':
      return t('forecast.demand.notes.shortHistory', { count: product.history_days });
    case 'measure_left_out':
      return t(product.unit === 'unit' ? 'forecast.demand.notes.kgLeftOut' : 'forecast.demand.notes.unitsLeftOut');
    case 'no_unit_weight':
      return t('forecast.demand.notes.noUnitWeight');
    case 'no_waste':
      return t('forecast.demand.noWaste');
    default:
      return note.message;
  }
}

/**
 * No waste record yet (in this mode, or in the chosen category): the server's forecast is then a
 * row of zeros, which a chart would draw as "0 kg expected". Say there is nothing to forecast yet
 * instead, and where records come from.
 */
function NoForecast({ filtered }: { filtered: boolean }) {
  const { t } = useTranslation();
  const { mode } = useScope();
  return (
    <Alert color="teal" variant="light" title={t('forecast.empty.title')} data-testid="forecast-empty">
      <Stack gap="xs">
        <Text size="sm">{t('forecast.empty.body', { mode: t(`forecast.empty.modes.${mode}`) })}</Text>
        {filtered && <Text size="sm">{t('forecast.empty.category')}</Text>}
        {/* The alert's own text colour: the link colour is under AA on its light teal. */}
        <Group gap="md">
          <AnchorLink to="/records" size="sm" c="var(--alert-color)" underline="always">
            {t('forecast.empty.records')}
          </AnchorLink>
          <Anchor href="/docs" size="sm" c="var(--alert-color)" underline="always">
            {t('forecast.empty.docs')}
          </Anchor>
        </Group>
      </Stack>
    </Alert>
  );
}

/** No sales received (in the chosen category): where they come from. */
function NoSales({ filtered }: { filtered: boolean }) {
  const { t } = useTranslation();
  return (
    <Alert color="teal" variant="light" title={t('forecast.demand.empty.title')}>
      <Stack gap="xs">
        {filtered && <Text size="sm">{t('forecast.demand.empty.category')}</Text>}
        <Text size="sm">{t('forecast.demand.empty.body')}</Text>
        {/* The alert's own text colour: the link colour is under AA on its light teal. */}
        <Group gap="md">
          <AnchorLink to="/integrations" size="sm" c="var(--alert-color)" underline="always">
            {t('forecast.demand.empty.integrations')}
          </AnchorLink>
          <Anchor href="/docs" size="sm" c="var(--alert-color)" underline="always">
            {t('forecast.demand.empty.docs')}
          </Anchor>
        </Group>
      </Stack>
    </Alert>
  );
}
