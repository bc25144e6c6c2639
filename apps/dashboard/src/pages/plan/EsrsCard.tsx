import { Button, Group, Table, Text } from '@mantine/core';
import { IconDownload, IconPrinter } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { currentLanguage } from '../../i18n/index.ts';
import { useFormat } from '../../lib/format.ts';
import { useScope } from '../../lib/scope.ts';
import { trpc } from '../../trpc.ts';
import { YearCard } from './YearCard.tsx';

/**
 * A year's food waste in the terms of ESRS E5-5, for a large customer's supplier questionnaire or
 * a sustainability report: what left as waste, diverted from disposal by recovery operation or
 * directed to disposal, the non-recycled share, and apart what was not waste (donated, fed to
 * animals, by-products). The server sums it from the register (modules/compliance/esrs.ts); the
 * year is the current one to date, or one of the three before.
 *
 * Printable on its own (to paper or PDF, for the questionnaire's attachment): the print button
 * marks the page (`data-print-only="esrs"` on the body, print.css), so the printout holds this
 * table with whose it is and when — the establishment, its CIF, the period, test data said — and
 * nothing else of the page; the mark goes once the browser has printed.
 */
export function EsrsCard({
  establishmentId,
  establishment,
  currentYear,
}: {
  establishmentId: string;
  establishment: { name: string; cif: string };
  currentYear: number;
}) {
  const { t } = useTranslation('plan');
  const { livemode } = useScope();
  const format = useFormat();
  const { language } = format;
  const [year, setYear] = useState(currentYear);
  const { data } = useQuery(trpc.compliance.esrsE5.queryOptions({ establishment_id: establishmentId, livemode, year }));
  const kg = new Intl.NumberFormat(language, { maximumFractionDigits: 1 });
  const pct = new Intl.NumberFormat(language, { style: 'percent', maximumFractionDigits: 1 });
  const rows: [string, string, boolean?][] = data
    ? [
        [t('plan.esrs.total'), `${kg.format(data.total_kg)} kg`],
        [t('plan.esrs.notWaste'), `${kg.format(data.not_waste_kg)} kg`],
        [t('plan.esrs.waste'), `${kg.format(data.waste_kg)} kg`, true],
        [t('plan.esrs.diverted'), `${kg.format(data.diverted_from_disposal.total_kg)} kg`, true],
        [t('plan.esrs.recycling'), `${kg.format(data.diverted_from_disposal.recycling_kg)} kg`],
        [t('plan.esrs.otherRecovery'), `${kg.format(data.diverted_from_disposal.other_recovery_kg)} kg`],
        [t('plan.esrs.disposal'), `${kg.format(data.directed_to_disposal.total_kg)} kg`, true],
        [t('plan.esrs.incineration'), `${kg.format(data.directed_to_disposal.incineration_kg)} kg`],
        [t('plan.esrs.landfill'), `${kg.format(data.directed_to_disposal.landfill_kg)} kg`],
        [t('plan.esrs.otherDisposal'), `${kg.format(data.directed_to_disposal.other_disposal_kg)} kg`],
        [
          t('plan.esrs.nonRecycled'),
          `${kg.format(data.non_recycled_kg)} kg${data.non_recycled_share === null ? '' : ` (${pct.format(data.non_recycled_share)})`}`,
          true,
        ],
        [
          t('plan.esrs.measured'),
          data.measured_share === null
            ? t('plan.esrs.noWaste')
            : t('plan.esrs.measuredSplit', {
                share: pct.format(data.measured_share),
                estimated: kg.format(data.measurement.estimated_kg),
                notStated: kg.format(data.measurement.not_stated_kg),
              }),
        ],
      ]
    : [];
  return (
    <YearCard
      id="esrs-title"
      testId="esrs"
      title={t('plan.esrs.title')}
      yearLabel={t('plan.esrs.year')}
      year={year}
      currentYear={currentYear}
      onYear={setYear}
      printHide
    >
      <Text size="sm" className="print-only" data-testid="esrs-print-heading">
        {t('plan.esrs.printHeading', { name: establishment.name, cif: establishment.cif })}
        {livemode ? '' : ` · ${t('plan.esrs.testData')}`}
      </Text>
      <Text size="sm" c="dimmed">
        {data ? t('plan.esrs.period', { from: format.date(data.period.from), to: format.date(data.period.to) }) : t('plan.esrs.loading')}
      </Text>
      <Table withTableBorder aria-labelledby="esrs-title">
        <Table.Tbody>
          {rows.map(([label, value, strong]) => (
            <Table.Tr key={label}>
              <Table.Th scope="row" fw={strong ? 700 : 400} pl={strong ? undefined : 'lg'}>
                {label}
              </Table.Th>
              <Table.Td ta="right" fw={strong ? 700 : 400} style={{ whiteSpace: 'nowrap' }}>
                {value}
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <Text size="xs" c="dimmed">
        {t('plan.esrs.note')}
      </Text>
      <Group gap="sm" data-print-hide>
        <Button
          component="a"
          href={`/export/esrs-e5.csv?${new URLSearchParams({
            establishment_id: establishmentId,
            mode: livemode ? 'live' : 'test',
            year: String(year),
            lang: currentLanguage(),
          })}`}
          download
          variant="default"
          leftSection={<IconDownload size={16} aria-hidden />}
          w="fit-content"
        >
          {t('plan.esrs.csv', { year })}
        </Button>
        <Button variant="default" leftSection={<IconPrinter size={16} aria-hidden />} onClick={printEsrs} w="fit-content">
          {t('plan.esrs.print', { year })}
        </Button>
      </Group>
    </YearCard>
  );
}

/** Prints this card alone: the body's mark selects it in print.css, and goes after printing. */
function printEsrs() {
  document.body.dataset.printOnly = 'esrs';
  window.addEventListener('afterprint', () => delete document.body.dataset.printOnly, { once: true });
  window.print();
}
