import {
  Alert,
  Badge,
  Button,
  Card,
  type ComboboxItem,
  Group,
  List,
  Modal,
  type OptionsFilter,
  Select,
  SimpleGrid,
  Stack,
  Text,
  Title,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { MAX_FLOOR_AREA_M2, NACE_CLASSES, type Obligations } from '@merma/schema';
import { useMutation, useSuspenseQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { DecimalInput, decimalError, decimalValue } from '../../components/DecimalInput.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { currentLanguage } from '../../i18n/index.ts';
import { formatDecimal } from '../../lib/decimal.ts';
import { useFormat } from '../../lib/format.ts';
import { notifications } from '../../lib/notify.ts';
import { can } from '../../lib/permissions.ts';
import { useScope } from '../../lib/scope.ts';
import { queryClient, trpc } from '../../trpc.ts';

const COLOR = { yes: 'red', no: 'teal', unknown: 'yellow' } as const;

const fold = (text: string) =>
  text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase();

/** An activity is found by words of its name, accents or not ("panaderia"), or by its code with or without the dot ("5610", "56.1"). */
const naceFilter: OptionsFilter = ({ options, search }) => {
  const words = fold(search.trim());
  const digits = search.replace(/\D/g, '');
  return (options as ComboboxItem[]).filter(
    (o) =>
      fold(o.label).includes(words) ||
      (digits.length > 0 && /^[\d.\s]+$/.test(search.trim()) && o.value.replace('.', '').startsWith(digits)),
  );
};

/**
 * "Does the law oblige you?": what Ley 1/2025 asks of the establishment — the prevention plan,
 * donation agreements and the order of priorities — each answered yes, no or not settled, with
 * why and the provisions it rests on, and the facts it rests on (the company's size, the
 * establishment's activity and floor area, the CIF's establishments). Owners and admins give the
 * facts; every member reads the answer. The server decides (modules/compliance): the page shows.
 */
export function ObligationsCard({ establishmentId }: { establishmentId: string }) {
  const { t } = useTranslation('plan');
  const { me } = useScope();
  const format = useFormat();
  const { language } = format;
  const lang = currentLanguage();
  const { data } = useSuspenseQuery(trpc.compliance.obligations.queryOptions({ establishment_id: establishmentId, lang }));
  const [editing, setEditing] = useState(false);
  const grouped = new Intl.NumberFormat(language, { maximumFractionDigits: 2 });
  const euros = new Intl.NumberFormat(language, { style: 'currency', currency: 'EUR', maximumFractionDigits: 0 });
  const number = (v: number | null, unit = '') => (v === null ? t('plan.obligations.notGiven') : `${grouped.format(v)}${unit}`);
  const money = (v: number | null) => (v === null ? t('plan.obligations.notGiven') : euros.format(v));
  return (
    <Card withBorder padding="md" component="section" aria-labelledby="obligations-title" data-print-hide data-testid="obligations">
      <Stack gap="sm">
        <Group justify="space-between" align="flex-start">
          <Title order={2} size="h3" id="obligations-title">
            {t('plan.obligations.title')}
          </Title>
          {can.manageCompliance(me.role) && (
            <Button variant="default" size="sm" onClick={() => setEditing(true)}>
              {t('plan.obligations.edit')}
            </Button>
          )}
        </Group>
        <List spacing="sm" listStyleType="none" p={0}>
          {data.obligations.map((o) => (
            <List.Item key={o.key} data-testid={`obligation-${o.key}`}>
              <Stack gap={2}>
                <Group gap="xs" wrap="nowrap" align="flex-start">
                  <Badge color={COLOR[o.applies]} variant="light" style={{ flexShrink: 0 }}>
                    {t(`plan.obligations.applies.${o.applies}`)}
                  </Badge>
                  <Text size="sm">{o.text}</Text>
                </Group>
                <Text size="xs" c="dimmed">
                  {o.articles.join(' · ')}
                </Text>
              </Stack>
            </List.Item>
          ))}
        </List>
        {data.missing.length > 0 && (
          <Alert color="yellow" variant="light" data-testid="obligations-missing">
            {t('plan.obligations.missing', { facts: data.missing.map((f) => t(`plan.obligations.facts.${f}`)).join(', ') })}
          </Alert>
        )}
        <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="sm">
          <Fact label={t('plan.obligations.company')}>
            {t('plan.obligations.size', {
              headcount: data.organization.headcount ?? t('plan.obligations.notGiven'),
              turnover: money(data.organization.annual_turnover_eur),
              balance: money(data.organization.balance_sheet_eur),
            })}
            {data.organization.microenterprise !== null &&
              ` ${t(data.organization.microenterprise ? 'plan.obligations.micro' : 'plan.obligations.notMicro')}`}
          </Fact>
          <Fact label={t('plan.obligations.activity')}>
            {data.establishment.nace_code
              ? `${data.establishment.nace_code} — ${data.establishment.nace_label ?? ''}`
              : t('plan.obligations.notGiven')}
            {data.establishment.stage && ` (${t(`plan.obligations.stages.${data.establishment.stage}`)})`}
          </Fact>
          <Fact label={t('plan.obligations.area')}>
            {number(data.establishment.floor_area_m2, ' m²')}
            {data.cif.establishments > 1 &&
              ` ${t('plan.obligations.cifArea', { count: data.cif.establishments, area: number(data.cif.floor_area_m2, ' m²'), cif: data.cif.cif })}`}
          </Fact>
        </SimpleGrid>
        <Text size="xs" c="dimmed">
          {t('plan.obligations.disclaimer', { date: format.date(data.as_of) })}
        </Text>
      </Stack>
      {editing && <FactsForm establishmentId={establishmentId} facts={data} onClose={() => setEditing(false)} />}
    </Card>
  );
}

function Fact({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <Stack gap={0}>
      <Text size="xs" fw={600}>
        {label}
      </Text>
      <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
        {children}
      </Text>
    </Stack>
  );
}

type Values = {
  headcount: string;
  annual_turnover_eur: string;
  balance_sheet_eur: string;
  nace_code: string | null;
  floor_area_m2: string;
};

/** The facts, as typed or pasted in either decimal mark; the server checks again and says what it refuses. */
function FactsForm({ establishmentId, facts, onClose }: { establishmentId: string; facts: Obligations; onClose: () => void }) {
  const { t } = useTranslation('plan');
  const { t: tMain } = useTranslation();
  const { language } = useFormat();
  const lang = currentLanguage();
  const shown = (v: number | null) => (v === null ? '' : formatDecimal(v, language, 2));
  const value = (v: string) => decimalValue(v, language);
  const form = useForm<Values>({
    initialValues: {
      headcount: facts.organization.headcount === null ? '' : String(facts.organization.headcount),
      annual_turnover_eur: shown(facts.organization.annual_turnover_eur),
      balance_sheet_eur: shown(facts.organization.balance_sheet_eur),
      nace_code: facts.establishment.nace_code,
      floor_area_m2: shown(facts.establishment.floor_area_m2),
    },
    validate: {
      headcount: (v) => decimalError(tMain, v, language, { min: 0, integer: true, optional: true }),
      annual_turnover_eur: (v) => decimalError(tMain, v, language, { min: 0, optional: true }),
      balance_sheet_eur: (v) => decimalError(tMain, v, language, { min: 0, optional: true }),
      floor_area_m2: (v) => decimalError(tMain, v, language, { min: 0, max: MAX_FLOOR_AREA_M2, optional: true }),
    },
  });
  const organization = useMutation(trpc.compliance.updateOrganization.mutationOptions({ meta: { inlineError: true } }));
  const establishment = useMutation(trpc.compliance.updateEstablishment.mutationOptions({ meta: { inlineError: true } }));
  const submit = async (v: Values) => {
    try {
      await organization.mutateAsync({
        headcount: value(v.headcount),
        annual_turnover_eur: value(v.annual_turnover_eur),
        balance_sheet_eur: value(v.balance_sheet_eur),
      });
      await establishment.mutateAsync({ establishment_id: establishmentId, nace_code: v.nace_code, floor_area_m2: value(v.floor_area_m2) });
    } catch {
      return; // shown under the form
    }
    notifications.show({ color: 'teal', message: t('plan.obligations.saved') });
    await queryClient.invalidateQueries(trpc.compliance.pathFilter());
    onClose();
  };
  const error = organization.error ?? establishment.error;
  return (
    <Modal opened onClose={onClose} title={t('plan.obligations.formTitle')} size="lg">
      <form onSubmit={form.onSubmit(submit)}>
        <Stack gap="sm">
          <Text size="sm" fw={600}>
            {t('plan.obligations.company')}
          </Text>
          <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="sm">
            <DecimalInput label={t('plan.obligations.form.headcount')} {...form.getInputProps('headcount')} data-autofocus />
            <DecimalInput label={t('plan.obligations.form.turnover')} {...form.getInputProps('annual_turnover_eur')} />
            <DecimalInput label={t('plan.obligations.form.balance')} {...form.getInputProps('balance_sheet_eur')} />
          </SimpleGrid>
          <Text size="sm" fw={600}>
            {t('plan.obligations.establishment')}
          </Text>
          <Select
            label={t('plan.obligations.form.activity')}
            description={t('plan.obligations.form.activityHelp')}
            searchable
            clearable
            filter={naceFilter}
            data={Object.entries(NACE_CLASSES).map(([code, label]) => ({ value: code, label: `${code} — ${label[lang]}` }))}
            {...form.getInputProps('nace_code')}
          />
          <DecimalInput
            label={t('plan.obligations.form.area')}
            description={t('plan.obligations.form.areaHelp')}
            {...form.getInputProps('floor_area_m2')}
          />
          {error && <ErrorAlert error={error} />}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              {t('plan.obligations.form.cancel')}
            </Button>
            <Button type="submit" loading={organization.isPending || establishment.isPending}>
              {t('plan.obligations.form.save')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
