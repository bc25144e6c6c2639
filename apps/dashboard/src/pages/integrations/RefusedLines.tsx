import { Alert, Button, Group, Loader, Select, Stack, Table, Text } from '@mantine/core';
import type { Integration, MapRefusedLineResult, RefusedLine } from '@merma/schema/dashboard';
import { IconAlertTriangle } from '@tabler/icons-react';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { useFormat } from '../../lib/format.ts';
import { queryClient, trpc } from '../../trpc.ts';

type Scope = { establishment_id: string; livemode: boolean };

/**
 * The lines an integration received and could not store (server: modules/integrations/refused.ts):
 * counted on the card, listed on demand, and — for those who may change integrations — mapped to a
 * product, which stores every kept line of that item and the item's later lines.
 */
export function RefusedLines({ integration, scope, manage }: { integration: Integration; scope: Scope; manage: boolean }) {
  const { t } = useTranslation('integrations');
  const [open, setOpen] = useState(false);
  const [result, setResult] = useState<MapRefusedLineResult | null>(null);
  if (integration.refused_count === 0 && !result) return null;
  return (
    <Alert color="orange" variant="light" icon={<IconAlertTriangle aria-hidden />} title={t('integrations.refused.title')}>
      <Stack gap="xs">
        {integration.refused_count > 0 && <Text size="sm">{t('integrations.refused.count', { count: integration.refused_count })}</Text>}
        {result && (
          <Text size="sm" role="status">
            {t('integrations.refused.stored', { count: result.stored })}
          </Text>
        )}
        {integration.refused_count > 0 && (
          <Group>
            <Button
              variant="default"
              size="xs"
              aria-expanded={open}
              onClick={() => setOpen((v) => !v)}
              aria-label={t(open ? 'integrations.refused.hideNamed' : 'integrations.refused.showNamed', { name: integration.name })}
            >
              {t(open ? 'integrations.refused.hide' : 'integrations.refused.show')}
            </Button>
          </Group>
        )}
        {open && integration.refused_count > 0 && (
          <LinesTable integration={integration} scope={scope} manage={manage} onMapped={setResult} />
        )}
      </Stack>
    </Alert>
  );
}

function LinesTable({
  integration,
  scope,
  manage,
  onMapped,
}: {
  integration: Integration;
  scope: Scope;
  manage: boolean;
  onMapped: (r: MapRefusedLineResult) => void;
}) {
  const { t } = useTranslation('integrations');
  const { t: common } = useTranslation();
  const lines = useQuery(trpc.integrations.refusedLines.queryOptions({ ...scope, integration_id: integration.id }));
  const products = useQuery({ ...trpc.catalog.products.queryOptions(), enabled: manage });
  if (lines.isPending) return <Loader size="sm" aria-label={common('common.loading')} />;
  if (lines.error) return <ErrorAlert error={lines.error} />;
  const options = (products.data ?? [])
    .filter((p) => p.active)
    .map((p) => ({ value: p.id, label: p.pos_ref ? `${p.name} (${p.pos_ref})` : p.name }));
  return (
    <Table.ScrollContainer minWidth={560}>
      <Table verticalSpacing="xs" fz="sm">
        <Table.Caption>{t('integrations.refused.caption', { name: integration.name })}</Table.Caption>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{t('integrations.refused.item')}</Table.Th>
            <Table.Th>{t('integrations.refused.quantity')}</Table.Th>
            <Table.Th>{t('integrations.refused.reason')}</Table.Th>
            {manage && <Table.Th>{t('integrations.refused.action')}</Table.Th>}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {lines.data.map((line) => (
            <LineRow
              key={line.id}
              line={line}
              integration={integration}
              scope={scope}
              manage={manage}
              options={options}
              onMapped={onMapped}
            />
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

function LineRow({
  line,
  integration,
  scope,
  manage,
  options,
  onMapped,
}: {
  line: RefusedLine;
  integration: Integration;
  scope: Scope;
  manage: boolean;
  options: { value: string; label: string }[];
  onMapped: (r: MapRefusedLineResult) => void;
}) {
  const { t } = useTranslation('integrations');
  const format = useFormat();
  const [product, setProduct] = useState<string | null>(null);
  const item = line.item_name ?? line.item_ref ?? t('integrations.refused.noItem');
  const map = useMutation(
    trpc.integrations.mapRefusedLine.mutationOptions({
      onSuccess: (r) => {
        onMapped(r);
        return Promise.all([
          queryClient.invalidateQueries(trpc.integrations.list.pathFilter()),
          queryClient.invalidateQueries(trpc.integrations.refusedLines.pathFilter()),
          queryClient.invalidateQueries(trpc.catalog.products.pathFilter()),
        ]);
      },
    }),
  );
  return (
    <Table.Tr>
      <Table.Td>
        <Text size="sm" fw={500} style={{ overflowWrap: 'anywhere' }}>
          {item}
        </Text>
        <Text size="xs" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
          {line.item_ref
            ? t('integrations.refused.itemRef', { ref: line.item_ref, order: line.order_ref ?? '—' })
            : t('integrations.refused.orderRef', { order: line.order_ref ?? '—' })}
        </Text>
        {line.sold_at && (
          <Text size="xs" c="dimmed">
            {format.dateTime(line.sold_at)}
          </Text>
        )}
      </Table.Td>
      <Table.Td>
        {line.quantity === null
          ? '—'
          : t(line.unit === 'kg' ? 'integrations.refused.kg' : 'integrations.refused.units', {
              count: line.quantity,
              quantity: format.number(line.quantity),
            })}
      </Table.Td>
      <Table.Td style={{ overflowWrap: 'anywhere' }}>{line.reason}</Table.Td>
      {manage && (
        <Table.Td>
          {line.mappable ? (
            <Stack gap={4} miw={200}>
              <Select
                size="xs"
                searchable
                data={options}
                value={product}
                onChange={setProduct}
                label={t('integrations.refused.productFor', { item })}
                placeholder={t('integrations.refused.pickProduct')}
                nothingFoundMessage={t('integrations.refused.noProduct')}
              />
              <Button
                size="xs"
                disabled={!product}
                loading={map.isPending}
                onClick={() => product && map.mutate({ ...scope, integration_id: integration.id, line_id: line.id, product_id: product })}
                aria-label={t('integrations.refused.mapNamed', { item })}
              >
                {t('integrations.refused.map')}
              </Button>
              {map.error && <ErrorAlert error={map.error} />}
            </Stack>
          ) : (
            <Text size="xs" c="dimmed">
              {t('integrations.refused.notMappable')}
            </Text>
          )}
        </Table.Td>
      )}
    </Table.Tr>
  );
}
