import { Anchor, Button, Card, Stack, Table, Text, Title, VisuallyHidden } from '@mantine/core';
import type { DemandPrediction, ProductDemand } from '@merma/schema';
import type { DemandForecastInput } from '@merma/schema/dashboard';
import { useQuery } from '@tanstack/react-query';
import type { TFunction } from 'i18next';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { EmptyCell } from '../../components/DataTable.tsx';
import { EmptyHint, hintLink } from '../../components/EmptyHint.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { AnchorLink } from '../../components/links.tsx';
import { PagePending } from '../../components/states.tsx';
import { useFormat } from '../../lib/format.ts';
import { trpc } from '../../trpc.ts';
import { ServiceLevel } from './ServiceLevel.tsx';

/**
 * Tomorrow's production (`GET /api/v1/predict?type=demand`, only its first day): per product sold,
 * most sold first, the expected sales, the quantity advised to prepare and the share of days it
 * covers, and what following the advice would have done over the last 4 weeks. Loaded apart from
 * the waste forecast, so that one still shows while this loads or if it fails.
 */
export function Production({ input }: { input: DemandForecastInput }) {
  const { t } = useTranslation();
  const { data, error, isPending, refetch, isRefetching } = useQuery(trpc.predict.demand.queryOptions(input));
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
          <ServiceLevel scope={{ establishment_id: input.establishment_id, livemode: input.livemode }} />
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
  // Whether today's sales are in is the establishment's, the same for every product: said once.
  const today = prediction.products.flatMap((p) => p.notes).find(isTodayNote);
  return (
    <>
      {today && (
        <Text size="sm" c="dimmed" data-testid="demand-today">
          {todayText(today, t)}
        </Text>
      )}
      <TotalAgainstAverage products={prediction.products} />
      {/* Scrolls sideways on a narrow screen: focusable, so that it scrolls from the keyboard too. */}
      <Table.ScrollContainer
        minWidth={960}
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
              <Table.Th>{t('forecast.demand.columns.againstAverage')}</Table.Th>
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
  // The table shows tomorrow: a closure's note only when tomorrow follows one; today's, above the table.
  const notes = product.notes
    .filter((note) => !isTodayNote(note) && (note.code !== 'after_closure' || tomorrow?.after_closure))
    .map((note) => noteText(note, product, t));
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
        {tomorrow?.closed ? (
          <Text size="sm" fw={600} data-testid="demand-closed">
            {t('forecast.demand.closed')}
          </Text>
        ) : tomorrow ? (
          <Text fz="lg" fw={700} data-testid="demand-advised">
            {quantity(tomorrow.advised, product.unit)}
          </Text>
        ) : (
          <EmptyCell />
        )}
      </Table.Td>
      <Table.Td ta="right">{tomorrow && !tomorrow.closed ? quantity(tomorrow.expected, product.unit) : <EmptyCell />}</Table.Td>
      <Table.Td>
        <Text size="sm">{t('forecast.demand.coverage', { percent: format.percent(advice.quantile) })}</Text>
        {advice.prices && (
          <Text size="xs" c="dimmed" maw={220} data-testid="demand-prices">
            {t('forecast.demand.prices', {
              leftover: format.euros(advice.prices.leftover_cost),
              missed: format.euros(advice.prices.missed_sale_cost),
            })}
          </Text>
        )}
        {advice.waste_share !== null && advice.waste_share > 0 && (
          <Text size="xs" c="dimmed">
            {t('forecast.demand.wasteShare', { percent: format.percent(advice.waste_share) })}
          </Text>
        )}
      </Table.Td>
      <Table.Td>
        <Avoided kg={past.avoided_kg} pct={past.avoided_pct} />
        {past.avoided_kg !== null && past.avoided_kg < 0 && <Trade product={product} extraKg={-past.avoided_kg} />}
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
      <Table.Td>
        <AgainstAverage product={product} quantity={quantity} />
      </Table.Td>
    </Table.Tr>
  );
}

/** The priced products' figures of the last 4 weeks, both costs known (the advice's and the 7-day average's). */
function pricedPast(product: ProductDemand) {
  const past = product.advice.last_4_weeks;
  const average = past.seven_day_average.cost;
  return past.days > 0 && past.cost !== null && average !== null ? { advice: past.cost, average } : null;
}

/** Euros the advice saves against the 7-day average (negative: it costs more), to the cent. */
const savedEuros = (advice: number, average: number) => Math.round((average - advice) * 100) / 100;

/**
 * The last 4 weeks against the simple rule a kitchen would otherwise follow (preparing the average
 * of the last 7 days): with prices, what each would have cost in leftovers and missed sales and the
 * difference, said in words (more or less), not only by its colour; without prices, what each would
 * have left over and run short, in the product's unit.
 */
function AgainstAverage({ product, quantity }: { product: ProductDemand; quantity: Quantity }) {
  const { t } = useTranslation();
  const format = useFormat();
  const past = product.advice.last_4_weeks;
  if (past.days === 0) return <EmptyCell />;
  const average = past.seven_day_average;
  const units = (figures: { left_over: number; short_quantity: number }) => ({
    leftOver: quantity(figures.left_over, product.unit),
    short: quantity(figures.short_quantity, product.unit),
  });
  const costs = pricedPast(product);
  if (!costs) {
    return (
      <Stack gap={2} maw={240} data-testid="demand-vs-average">
        <Text size="sm">{t('forecast.demand.vsAverage.adviceUnits', units(past))}</Text>
        <Text size="sm">{t('forecast.demand.vsAverage.averageUnits', units(average))}</Text>
      </Stack>
    );
  }
  const saved = savedEuros(costs.advice, costs.average);
  return (
    <Stack gap={2} maw={240} data-testid="demand-vs-average">
      <Text size="sm" fw={600} c={saved > 0 ? 'teal.9' : saved < 0 ? 'red.9' : undefined}>
        {difference(t, format.euros, saved)}
      </Text>
      <Text size="xs">{t('forecast.demand.vsAverage.adviceEuros', { cost: format.euros(costs.advice), ...units(past) })}</Text>
      <Text size="xs">{t('forecast.demand.vsAverage.averageEuros', { cost: format.euros(costs.average), ...units(average) })}</Text>
    </Stack>
  );
}

/** "16,20 € less than the 7-day average", "… more …" or "the same" (in the total, shorter: "16,20 € less"). */
function difference(t: TFunction, euros: (value: number) => string, saved: number, total = false): string {
  const amount = { euros: euros(Math.abs(saved)) };
  if (saved > 0) return total ? t('forecast.demand.vsAverage.totalDifference.less', amount) : t('forecast.demand.vsAverage.less', amount);
  if (saved < 0) return total ? t('forecast.demand.vsAverage.totalDifference.more', amount) : t('forecast.demand.vsAverage.more', amount);
  return total ? t('forecast.demand.vsAverage.totalDifference.same') : t('forecast.demand.vsAverage.same');
}

/**
 * Above the table, the sum over the products with prices: what following the advice would have
 * cost in the last 4 weeks against preparing the 7-day average. Nothing without a priced product.
 */
function TotalAgainstAverage({ products }: { products: ProductDemand[] }) {
  const { t } = useTranslation();
  const format = useFormat();
  const priced = products.map(pricedPast).filter((costs) => costs !== null);
  if (priced.length === 0) return null;
  const advice = priced.reduce((sum, costs) => sum + costs.advice, 0);
  const average = priced.reduce((sum, costs) => sum + costs.average, 0);
  return (
    <Text size="sm" maw={720} data-testid="demand-vs-average-total">
      {t('forecast.demand.vsAverage.total', {
        count: priced.length,
        advice: format.euros(advice),
        average: format.euros(average),
        difference: difference(t, format.euros, savedEuros(advice, average), true),
      })}
    </Text>
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

/**
 * Why the advice would have wasted more, in one sentence: the extra waste buys fewer stock-outs.
 * With prices, the leftover's and the missed sale's costs that make it worth it, and the extra
 * waste in euros too (kg → units by the product's unit weight when it is sold by the unit).
 */
function Trade({ product, extraKg }: { product: ProductDemand; extraKg: number }) {
  const { t } = useTranslation();
  const format = useFormat();
  const { prices, last_4_weeks: past } = product.advice;
  const sold = product.unit === 'kg' ? extraKg : product.unit_weight_kg ? extraKg / product.unit_weight_kg : null;
  const waste =
    prices && sold !== null
      ? t('forecast.demand.wasteEuros', { kg: format.kg(extraKg), euros: format.euros(sold * prices.leftover_cost) })
      : format.kg(extraKg);
  const short = { waste, short: past.short_days, count: past.days };
  return (
    <Text size="xs" c="dimmed" maw={260} data-testid="demand-trade">
      {prices
        ? t('forecast.demand.tradePrices', {
            ...short,
            leftover: format.euros(prices.leftover_cost),
            missed: format.euros(prices.missed_sale_cost),
          })
        : t('forecast.demand.trade', short)}
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
    case 'after_closure':
      return t('forecast.demand.notes.afterClosure');
    default:
      return note.message;
  }
}

type Note = ProductDemand['notes'][number];

function isTodayNote(note: Note): boolean {
  return note.code === 'today_included' || note.code === 'today_excluded';
}

/**
 * Whether today's sales are in the forecast, and why, in the reader's language from the note's
 * facts (`reason`, `closes_at`, `basis`); its English message from a server that does not send them.
 */
function todayText(note: Note, t: TFunction): string {
  const time = note.closes_at;
  switch (note.reason) {
    case 'day_over':
      return time && (note.basis === 'shifts' || note.basis === 'sales')
        ? t('forecast.demand.today.includedAt', { time, basis: t(`forecast.demand.today.basis.${note.basis}`) })
        : t('forecast.demand.today.included');
    case 'day_not_over':
      return time ? t('forecast.demand.today.dayNotOver', { time }) : note.message;
    case 'not_arrived':
      return t('forecast.demand.today.notArrived');
    case 'until_midnight':
      return t('forecast.demand.today.untilMidnight');
    case 'unknown':
      return t('forecast.demand.today.unknown');
    default:
      return note.code === 'today_included' ? t('forecast.demand.today.included') : note.message;
  }
}

/** No sales received (in the chosen category): where they come from. */
function NoSales({ filtered }: { filtered: boolean }) {
  const { t } = useTranslation();
  return (
    <EmptyHint
      title={t('forecast.demand.empty.title')}
      lines={[filtered && t('forecast.demand.empty.category'), t('forecast.demand.empty.body')]}
      links={
        <>
          <AnchorLink to="/products" {...hintLink}>
            {t('forecast.demand.empty.products')}
          </AnchorLink>
          <AnchorLink to="/integrations" {...hintLink}>
            {t('forecast.demand.empty.integrations')}
          </AnchorLink>
          <Anchor href="/docs" {...hintLink}>
            {t('forecast.demand.empty.docs')}
          </Anchor>
        </>
      }
    />
  );
}
