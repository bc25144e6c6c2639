import { List, Stack, Table, Text } from '@mantine/core';
import { useQuery, useSuspenseQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { AnchorLink } from '../../components/links.tsx';
import { useFormat } from '../../lib/format.ts';
import { useScope } from '../../lib/scope.ts';
import { trpc } from '../../trpc.ts';
import { YearCard } from './YearCard.tsx';

/**
 * The order of priorities kept in writing (Ley 1/2025 art. 5.2): the year's records sent lower than
 * the best step their food category reached, how many carry a justification and why, and the ones
 * still without one — each a link to the record, where correcting it with a reason justifies it.
 * The server finds them (modules/compliance/hierarchy.ts); nothing is refused for lacking one.
 */
export function HierarchyCard({ establishmentId, currentYear }: { establishmentId: string; currentYear: number }) {
  const { t } = useTranslation('plan');
  const { t: main } = useTranslation();
  const { livemode } = useScope();
  const format = useFormat();
  const [year, setYear] = useState(currentYear);
  const { data: catalog } = useSuspenseQuery(trpc.catalog.get.queryOptions());
  const { data } = useQuery(trpc.compliance.hierarchy.queryOptions({ establishment_id: establishmentId, livemode, year }));
  const kg = (value: number) => `${format.number(value)} kg`;
  const destination = (id: string) => catalog.destinations.find((d) => d.id === id)?.nombre ?? id;
  return (
    <YearCard
      id="hierarchy-title"
      testId="hierarchy"
      title={t('plan.hierarchy.title')}
      yearLabel={t('plan.hierarchy.year')}
      year={year}
      currentYear={currentYear}
      onYear={setYear}
      printHide
    >
      {!data ? (
        <Text size="sm" c="dimmed">
          {t('plan.hierarchy.loading')}
        </Text>
      ) : data.below_best.records === 0 ? (
        <Text size="sm">{t('plan.hierarchy.none')}</Text>
      ) : (
        <>
          <Text size="sm">
            {t('plan.hierarchy.summary', {
              below: data.below_best.records,
              kg: kg(data.below_best.kg),
              justified: data.justified.records,
              missing: data.unjustified_count,
            })}
          </Text>
          {data.by_reason.length > 0 && (
            <Table withTableBorder aria-labelledby="hierarchy-title">
              <Table.Tbody>
                {data.by_reason.map((r) => (
                  <Table.Tr key={r.reason}>
                    <Table.Th scope="row" fw={400}>
                      {main(`hierarchyReasons.${r.reason}`)}
                    </Table.Th>
                    <Table.Td ta="right" style={{ whiteSpace: 'nowrap' }}>
                      {t('plan.hierarchy.records', { count: r.records })} · {kg(r.kg)}
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          )}
          {data.unjustified.length > 0 && (
            <Stack gap={4}>
              <Text size="sm" fw={600} id="hierarchy-missing">
                {t('plan.hierarchy.missing')}
              </Text>
              <List size="sm" spacing={4} aria-labelledby="hierarchy-missing">
                {data.unjustified.map((r) => (
                  <List.Item key={r.id}>
                    <AnchorLink to="/records" search={{ record: r.id }} size="sm">
                      {t('plan.hierarchy.item', {
                        date: format.dateTime(r.occurred_at),
                        category: main(`categories.${r.food_category}`),
                        kg: kg(r.weight_kg),
                        to: destination(r.destino_id),
                        best: destination(r.best_destino_id),
                      })}
                    </AnchorLink>
                  </List.Item>
                ))}
              </List>
            </Stack>
          )}
        </>
      )}
      <Text size="xs" c="dimmed">
        {t('plan.hierarchy.note')}
      </Text>
    </YearCard>
  );
}
