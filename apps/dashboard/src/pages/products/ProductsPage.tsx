import { Badge, Button, Card, Group, Modal, Select, Stack, Table, Text, Textarea, TextInput, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { FOOD_CATEGORIES, type ImportProductsResult, isValidGtin, type Product } from '@merma/schema';
import { useMutation, useSuspenseQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { type Column, DataTable, EmptyCell } from '../../components/DataTable.tsx';
import { DecimalInput, decimalError, decimalValue } from '../../components/DecimalInput.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { Page } from '../../components/Page.tsx';
import { formatDecimal } from '../../lib/decimal.ts';
import { detailText, errorInfo } from '../../lib/errors.ts';
import { useFormat } from '../../lib/format.ts';
import { notifications } from '../../lib/notify.ts';
import { can } from '../../lib/permissions.ts';
import { useScope } from '../../lib/scope.ts';
import { queryClient, trpc } from '../../trpc.ts';

/**
 * The organisation's products: what the POS's sales name and the production advice is made for.
 * Everyone reads the list; owners, admins and developers add and edit products (prices included,
 * which let the advice weigh a leftover against a missed sale), deactivate them, and import a CSV —
 * checked and previewed line by line before anything is written.
 */
export function ProductsPage() {
  const { t } = useTranslation();
  const { me } = useScope();
  const { data } = useSuspenseQuery(trpc.catalog.products.queryOptions());
  const manage = can.manageProducts(me.role);
  const format = useFormat();
  const [editing, setEditing] = useState<Product | 'new' | null>(null);
  const euros = (v: number | null) => (v === null ? <EmptyCell /> : format.euros(v));
  const columns: Column<Product>[] = [
    {
      key: 'name',
      header: t('products.columns.name'),
      render: (p) => (
        <Group gap="xs">
          <Text size="sm">{p.name}</Text>
          {!p.active && (
            <Badge variant="light" color="gray">
              {t('products.inactive')}
            </Badge>
          )}
        </Group>
      ),
    },
    { key: 'category', header: t('products.columns.category'), render: (p) => t(`categories.${p.food_category}`) },
    { key: 'ean', header: t('products.columns.ean'), render: (p) => p.ean },
    { key: 'pos', header: t('products.columns.posRef'), render: (p) => p.pos_ref ?? <EmptyCell /> },
    { key: 'price', header: t('products.columns.price'), render: (p) => euros(p.price) },
    { key: 'cost', header: t('products.columns.cost'), render: (p) => euros(p.unit_cost) },
    ...(manage
      ? [
          {
            key: 'actions',
            header: t('products.columns.actions'),
            render: (p: Product) => <ProductActions product={p} onEdit={() => setEditing(p)} />,
          },
        ]
      : []),
  ];
  return (
    <Page title={t('products.title')} description={t('products.description')}>
      <Stack gap="sm">
        {manage && (
          <Group>
            <Button onClick={() => setEditing('new')}>{t('products.add')}</Button>
          </Group>
        )}
        <DataTable
          caption={t('products.title')}
          columns={columns}
          rows={data}
          rowKey={(p) => p.id}
          empty={t('products.empty')}
          minWidth={manage ? 900 : 720}
        />
        {!manage && (
          <Text size="sm" c="dimmed">
            {t('products.readOnly')}
          </Text>
        )}
      </Stack>
      {manage && <ImportProducts />}
      {editing && <ProductForm product={editing === 'new' ? null : editing} onClose={() => setEditing(null)} />}
    </Page>
  );
}

const refresh = () =>
  Promise.all([
    queryClient.invalidateQueries(trpc.catalog.products.pathFilter()),
    queryClient.invalidateQueries(trpc.predict.demand.pathFilter()),
  ]);

function ProductActions({ product, onEdit }: { product: Product; onEdit: () => void }) {
  const { t } = useTranslation();
  const toggle = useMutation(
    trpc.catalog.updateProduct.mutationOptions({
      onSuccess: async (p) => {
        notifications.show({ color: 'teal', message: t(p.active ? 'products.reactivated' : 'products.deactivated', { name: p.name }) });
        await refresh();
      },
    }),
  );
  return (
    <Group gap="xs" wrap="nowrap">
      <Button size="xs" variant="default" onClick={onEdit} aria-label={t('products.editLabel', { name: product.name })}>
        {t('products.edit')}
      </Button>
      <Button
        size="xs"
        variant="default"
        loading={toggle.isPending}
        onClick={() => toggle.mutate({ id: product.id, active: !product.active })}
        aria-label={t(product.active ? 'products.deactivateLabel' : 'products.reactivateLabel', { name: product.name })}
      >
        {t(product.active ? 'products.deactivate' : 'products.reactivate')}
      </Button>
    </Group>
  );
}

type Values = {
  name: string;
  food_category: string;
  ean: string;
  pos_ref: string;
  /** The amounts as typed or pasted, in either decimal mark (lib/decimal.ts); empty is none. */
  unit_weight_kg: string;
  /** kg per litre: weighs a sale or loss a POS sends in litres or fluid ounces. */
  density_kg_per_l: string;
  price: string;
  unit_cost: string;
  salvage_value: string;
};

/**
 * A new product (`product` null) or one's fields; the server checks again and says what it refuses.
 * Amounts are shown in the language's decimal mark and read from what is typed or pasted in
 * either mark (`7,50`, `7.50`, `1.234,5`); one that reads two ways is refused under its field.
 */
function ProductForm({ product, onClose }: { product: Product | null; onClose: () => void }) {
  const { t } = useTranslation();
  const { language } = useFormat();
  const shown = (v: number | null | undefined) => (v === null || v === undefined ? '' : formatDecimal(v, language));
  const amount = (v: string) => decimalValue(v, language);
  const checked = (v: string) => decimalError(t, v, language, { min: 0, optional: true });
  const form = useForm<Values>({
    initialValues: {
      name: product?.name ?? '',
      food_category: product?.food_category ?? '',
      ean: product?.ean ?? '',
      pos_ref: product?.pos_ref ?? '',
      unit_weight_kg: shown(product?.unit_weight_kg),
      density_kg_per_l: shown(product?.density_kg_per_l),
      price: shown(product?.price),
      unit_cost: shown(product?.unit_cost),
      salvage_value: shown(product?.salvage_value),
    },
    validate: {
      name: (v) => (v.trim() ? null : t('products.form.nameRequired')),
      food_category: (v) => (v ? null : t('products.form.categoryRequired')),
      ean: (v) => (isValidGtin(v.trim()) ? null : t('products.form.eanInvalid')),
      unit_weight_kg: (v) => checked(v),
      density_kg_per_l: (v) => checked(v) ?? (amount(v) === 0 ? t('products.form.densityPositive') : null),
      price: (v) => checked(v),
      unit_cost: (v, values) =>
        checked(v) ?? ((amount(v) ?? 0) > (amount(values.price) ?? Number.POSITIVE_INFINITY) ? t('products.form.costAbovePrice') : null),
      salvage_value: (v, values) =>
        checked(v) ??
        ((amount(v) ?? 0) > (amount(values.unit_cost) ?? Number.POSITIVE_INFINITY) ? t('products.form.salvageAboveCost') : null),
    },
  });
  const done = async (p: Product) => {
    notifications.show({ color: 'teal', message: t(product ? 'products.form.saved' : 'products.form.created', { name: p.name }) });
    await refresh();
    onClose();
  };
  const create = useMutation(trpc.catalog.createProduct.mutationOptions({ meta: { inlineError: true }, onSuccess: done }));
  const update = useMutation(trpc.catalog.updateProduct.mutationOptions({ meta: { inlineError: true }, onSuccess: done }));
  const pending = create.isPending || update.isPending;
  const error = create.error ?? update.error;
  const submit = (v: Values) => {
    const fields = {
      name: v.name.trim(),
      food_category: v.food_category as Product['food_category'],
      ean: v.ean.trim(),
      pos_ref: v.pos_ref.trim() || null,
      unit_weight_kg: amount(v.unit_weight_kg),
      density_kg_per_l: amount(v.density_kg_per_l),
      price: amount(v.price),
      unit_cost: amount(v.unit_cost),
      salvage_value: amount(v.salvage_value),
    };
    if (product) update.mutate({ id: product.id, ...fields });
    else create.mutate(fields);
  };
  return (
    <Modal
      opened
      onClose={onClose}
      title={product ? t('products.form.editTitle', { name: product.name }) : t('products.form.newTitle')}
      size="lg"
    >
      <form onSubmit={form.onSubmit(submit)}>
        <Stack gap="sm">
          <TextInput label={t('products.form.name')} {...form.getInputProps('name')} maxLength={200} data-autofocus />
          <Group grow align="flex-start">
            <Select
              label={t('products.form.category')}
              data={FOOD_CATEGORIES.map((c) => ({ value: c, label: t(`categories.${c}`) }))}
              {...form.getInputProps('food_category')}
            />
            <TextInput label={t('products.form.ean')} {...form.getInputProps('ean')} inputMode="numeric" maxLength={14} />
          </Group>
          <Group grow align="flex-start">
            <TextInput label={t('products.form.posRef')} {...form.getInputProps('pos_ref')} maxLength={100} />
            <DecimalInput label={t('products.form.unitWeight')} {...form.getInputProps('unit_weight_kg')} />
            <DecimalInput
              label={t('products.form.density')}
              description={t('products.form.densityHint')}
              {...form.getInputProps('density_kg_per_l')}
            />
          </Group>
          <Group grow align="flex-start">
            <DecimalInput label={t('products.form.price')} {...form.getInputProps('price')} />
            <DecimalInput label={t('products.form.cost')} {...form.getInputProps('unit_cost')} />
            <DecimalInput label={t('products.form.salvage')} {...form.getInputProps('salvage_value')} />
          </Group>
          <Text size="xs" c="dimmed">
            {t('products.form.pricesHint')}
          </Text>
          {error && <ErrorAlert error={error} />}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              {t('common.cancel')}
            </Button>
            <Button type="submit" loading={pending}>
              {t(product ? 'common.save' : 'products.form.create')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

/** A CSV pasted or chosen: checked and previewed first (a dry run), then imported as previewed. */
function ImportProducts() {
  const { t, i18n } = useTranslation();
  const [csv, setCsv] = useState('');
  const [preview, setPreview] = useState<ImportProductsResult | null>(null);
  const check = useMutation(trpc.catalog.importProducts.mutationOptions({ meta: { inlineError: true }, onSuccess: setPreview }));
  const run = useMutation(
    trpc.catalog.importProducts.mutationOptions({
      meta: { inlineError: true },
      onSuccess: async (result) => {
        notifications.show({ color: 'teal', message: t('products.import.done', { created: result.created, updated: result.updated }) });
        setCsv('');
        setPreview(null);
        await refresh();
      },
    }),
  );
  const problems = check.error ? (errorInfo(check.error).details ?? []) : [];
  return (
    <Card withBorder padding="md" component="section" aria-labelledby="import-heading">
      <Stack gap="sm">
        <Title order={2} size="h4" id="import-heading">
          {t('products.import.title')}
        </Title>
        <Text size="sm" c="dimmed">
          {t('products.import.hint')}
        </Text>
        <input
          type="file"
          accept=".csv,text/csv"
          aria-label={t('products.import.file')}
          onChange={async (e) => {
            const file = e.currentTarget.files?.[0];
            if (file) {
              setCsv(await file.text());
              setPreview(null);
              check.reset();
            }
          }}
        />
        <Textarea
          label={t('products.import.text')}
          value={csv}
          onChange={(e) => {
            setCsv(e.currentTarget.value);
            setPreview(null);
            check.reset();
          }}
          autosize
          minRows={3}
          maxRows={10}
          styles={{ input: { fontFamily: 'monospace' } }}
        />
        <Group>
          <Button variant="default" disabled={!csv.trim()} loading={check.isPending} onClick={() => check.mutate({ csv, dry_run: true })}>
            {t('products.import.check')}
          </Button>
          {preview && (
            <Button loading={run.isPending} onClick={() => run.mutate({ csv, dry_run: false })}>
              {t('products.import.run', { count: preview.products.length })}
            </Button>
          )}
        </Group>
        {problems.length > 0 && (
          <Stack gap={2} role="alert" data-testid="import-problems">
            <Text size="sm" fw={600} c="red.9">
              {t('products.import.problems')}
            </Text>
            {problems.map((p) => (
              <Text key={p.message} size="sm" c="red.9">
                {p.code ? detailText(i18n, p) : p.message}
              </Text>
            ))}
          </Stack>
        )}
        {check.error && problems.length === 0 && <ErrorAlert error={check.error} />}
        {run.error && <ErrorAlert error={run.error} />}
        {preview && <Preview result={preview} />}
      </Stack>
    </Card>
  );
}

function Preview({ result }: { result: ImportProductsResult }) {
  const { t } = useTranslation();
  const format = useFormat();
  return (
    <Stack gap="xs" data-testid="import-preview">
      <Text size="sm">{t('products.import.summary', { created: result.created, updated: result.updated })}</Text>
      {/* Scrolls sideways on a narrow screen: focusable, so that it scrolls from the keyboard too. */}
      <Table.ScrollContainer
        minWidth={600}
        type="native"
        tabIndex={0}
        role="region"
        aria-label={t('products.import.previewCaption')}
        className="mantine-focus-auto"
      >
        <Table striped>
          <Table.Caption>{t('products.import.previewCaption')}</Table.Caption>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t('products.import.line')}</Table.Th>
              <Table.Th>{t('products.columns.name')}</Table.Th>
              <Table.Th>{t('products.columns.ean')}</Table.Th>
              <Table.Th>{t('products.columns.price')}</Table.Th>
              <Table.Th>{t('products.import.action')}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {result.products.map((row) => (
              <Table.Tr key={row.line}>
                <Table.Td>{row.line}</Table.Td>
                <Table.Td>{row.product.name}</Table.Td>
                <Table.Td>{row.product.ean}</Table.Td>
                <Table.Td>{row.product.price === null ? '—' : format.euros(row.product.price)}</Table.Td>
                <Table.Td>{t(row.action === 'create' ? 'products.import.create' : 'products.import.update')}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Stack>
  );
}
