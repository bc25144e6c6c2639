import { Anchor, Card, Group, Select, SimpleGrid, Stack, Table, Text, VisuallyHidden } from '@mantine/core';
import type { Prediction } from '@merma/schema';
import { useSuspenseQuery } from '@tanstack/react-query';
import { getRouteApi, useNavigate } from '@tanstack/react-router';
import { useTranslation } from 'react-i18next';
import { ForecastBand } from '../../components/charts/index.tsx';
import { EmptyHint, hintLink } from '../../components/EmptyHint.tsx';
import { AnchorLink } from '../../components/links.tsx';
import { NoEstablishment } from '../../components/NoEstablishment.tsx';
import { Page } from '../../components/Page.tsx';
import { Segmented } from '../../components/Segmented.tsx';
import { useFormat } from '../../lib/format.ts';
import { useScope } from '../../lib/scope.ts';
import { CATEGORIES, isCategory } from '../../lib/waste.ts';
import { trpc } from '../../trpc.ts';
import { Production } from './Production.tsx';

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
  const { data } = useSuspenseQuery(trpc.predict.waste.queryOptions(input));
  return (
    <Stack gap="lg">
      <Group gap="md" align="flex-end" wrap="wrap">
        <Stack gap={4}>
          <Text size="sm" fw={500} id="forecast-horizon">
            {t('forecast.horizon')}
          </Text>
          <Segmented
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
      <ForecastBand data={data} />
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
 * No waste record yet (in this mode, or in the chosen category): the server's forecast is then a
 * row of zeros, which a chart would draw as "0 kg expected". Say there is nothing to forecast yet
 * instead, and where records come from.
 */
function NoForecast({ filtered }: { filtered: boolean }) {
  const { t } = useTranslation();
  const { mode } = useScope();
  return (
    <EmptyHint
      title={t('forecast.empty.title')}
      testId="forecast-empty"
      lines={[t('forecast.empty.body', { mode: t(`forecast.empty.modes.${mode}`) }), filtered && t('forecast.empty.category')]}
      links={
        <>
          <AnchorLink to="/records" {...hintLink}>
            {t('forecast.empty.records')}
          </AnchorLink>
          <Anchor href="/docs" {...hintLink}>
            {t('forecast.empty.docs')}
          </Anchor>
        </>
      }
    />
  );
}
