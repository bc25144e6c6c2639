import { ActionIcon, Alert, Button, Checkbox, Fieldset, Group, Modal, Select, SimpleGrid, Stack, Textarea, TextInput } from '@mantine/core';
import { type UseFormReturnType, useForm } from '@mantine/form';
import { ALLERGENS, DONATION_STORAGE, DONATION_UNITS, FOOD_CATEGORIES, MAX_DONATION_LINES, type Product } from '@merma/schema';
import type { DashboardDonationAgreement } from '@merma/schema/dashboard';
import { IconPlus, IconTrash } from '@tabler/icons-react';
import { useMutation, useSuspenseQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { DecimalInput } from '../../components/DecimalInput.tsx';
import { ModalForm } from '../../components/SecretFormModal.tsx';
import { errorInfo } from '../../lib/errors.ts';
import { useFormat } from '../../lib/format.ts';
import { notifications } from '../../lib/notify.ts';
import { queryClient, trpc } from '../../trpc.ts';
import { emptyLine, fieldErrors, type LineValues, lineRules, type OfferValues, offerInput } from './offer-form.ts';

type Props = {
  scope: { establishment_id: string; livemode: boolean };
  establishmentName: string;
  onClose: () => void;
  /** After it is stored: the new donation's id (the page opens it, to send it for signature). */
  onOffered: (id: string) => void;
};

/** The agreements a donation may be given under here: in force (active or ending soon) and covering the establishment. */
export const inForce = (agreements: DashboardDonationAgreement[], establishmentId: string) =>
  agreements.filter((a) => (a.status === 'active' || a.status === 'expiring') && a.establishment_ids.includes(establishmentId));

/**
 * Offers a donation: the agreement (one in force covering the establishment), then each line — a
 * product of the catalogue or a category, what it is, how much (and its net kg when not in kg), its
 * lot, dates, storage, whether cooked, the EU's 14 allergens, its temperature and, optionally, its
 * values. The server checks it as the API does (the agreement's categories and kinds, use-by dates,
 * bounds) and its details appear under the fields they name. Render it only while open.
 */
export function OfferDonationModal({ scope, establishmentName, onClose, onOffered }: Props) {
  const { t, i18n } = useTranslation('donations');
  const { t: common } = useTranslation();
  const format = useFormat();
  const { data: agreements } = useSuspenseQuery(trpc.donations.agreements.queryOptions({ establishment_id: scope.establishment_id }));
  const { data: products } = useSuspenseQuery(trpc.catalog.products.queryOptions());
  const usable = inForce(agreements, scope.establishment_id);
  const form = useForm<OfferValues>({
    initialValues: { agreement_id: usable.length === 1 ? (usable[0]?.id ?? null) : null, notes: '', lines: [emptyLine()] },
    validate: {
      agreement_id: (v) => (v ? null : t('donations.offerForm.agreementRequired')),
      lines: lineRules(t, common, format.language),
    },
  });
  const offer = useMutation({
    ...trpc.donations.offer.mutationOptions({
      onSuccess: async (donation) => {
        notifications.show({ color: 'teal', message: t('donations.offerForm.offered', { entity: donation.entity_name }) });
        // Each line is a record: the records and the figures built from them change too.
        await Promise.all([
          queryClient.invalidateQueries(trpc.donations.list.pathFilter()),
          queryClient.invalidateQueries(trpc.records.pathFilter()),
          queryClient.invalidateQueries(trpc.analytics.pathFilter()),
        ]);
        onOffered(donation.id);
      },
      onError: (error) => form.setErrors(fieldErrors(i18n, errorInfo(error).details, form.getValues().lines.length)),
    }),
    meta: { inlineError: true },
  });

  return (
    <Modal opened onClose={onClose} title={t('donations.offerForm.title')} size="xl">
      {usable.length === 0 ? (
        <Stack>
          <Alert color="orange" variant="light">
            {t('donations.offerForm.noAgreement', { establishment: establishmentName })}
          </Alert>
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              {common('common.close')}
            </Button>
          </Group>
        </Stack>
      ) : (
        <ModalForm
          onSubmit={form.onSubmit((values) => offer.mutate(offerInput(scope, values, format.language)))}
          mutation={offer}
          submitLabel={t('donations.offerForm.submit')}
          onCancel={onClose}
        >
          <Select
            label={t('donations.offerForm.agreement')}
            description={t('donations.offerForm.agreementHint', { establishment: establishmentName })}
            required
            data={usable.map((a) => ({
              value: a.id,
              label: t('donations.offerForm.agreementOption', { entity: a.entity_name, until: format.date(a.valid_until) }),
            }))}
            allowDeselect={false}
            data-autofocus
            {...form.getInputProps('agreement_id')}
          />
          {form.getValues().lines.map((line, index) => (
            <LineFields key={line.key} index={index} form={form} products={products} removable={form.getValues().lines.length > 1} />
          ))}
          <Group>
            <Button
              variant="default"
              leftSection={<IconPlus size={16} aria-hidden />}
              disabled={form.getValues().lines.length >= MAX_DONATION_LINES}
              onClick={() => form.insertListItem('lines', emptyLine())}
            >
              {t('donations.offerForm.addLine')}
            </Button>
          </Group>
          <Textarea label={t('donations.offerForm.notes')} autosize minRows={2} maxLength={2000} {...form.getInputProps('notes')} />
        </ModalForm>
      )}
    </Modal>
  );
}

type Form = UseFormReturnType<OfferValues>;

/** One line's fields, in a fieldset named "Line n". */
function LineFields({ index, form, products, removable }: { index: number; form: Form; products: Product[]; removable: boolean }) {
  const { t } = useTranslation('donations');
  const { t: common } = useTranslation();
  const n = index + 1;
  const at = (field: keyof LineValues) => `lines.${index}.${field}`;
  const line = form.getValues().lines[index] as LineValues;
  const chooseProduct = (id: string | null) => {
    form.setFieldValue(at('product_id'), id);
    const product = products.find((p) => p.id === id);
    // Its name says what it is, unless something was written already.
    if (product && !line.description.trim()) form.setFieldValue(at('description'), product.name);
  };
  return (
    <Fieldset legend={t('donations.offerForm.line', { n })} variant="filled">
      <Stack gap="sm">
        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
          <Select
            label={t('donations.offerForm.product')}
            description={t('donations.offerForm.productHint')}
            data={products.filter((p) => p.active || p.id === line.product_id).map((p) => ({ value: p.id, label: p.name }))}
            searchable
            clearable
            {...form.getInputProps(at('product_id'))}
            onChange={chooseProduct}
          />
          <Select
            label={t('donations.offerForm.category')}
            description={line.product_id ? t('donations.offerForm.categoryFromProduct') : undefined}
            required={!line.product_id}
            clearable
            data={FOOD_CATEGORIES.map((c) => ({ value: c, label: common(`categories.${c}`) }))}
            {...form.getInputProps(at('food_category'))}
          />
        </SimpleGrid>
        <TextInput label={t('donations.offerForm.description')} required maxLength={200} {...form.getInputProps(at('description'))} />
        <SimpleGrid cols={{ base: 2, sm: 4 }} spacing="sm">
          <DecimalInput label={t('donations.offerForm.quantity')} required {...form.getInputProps(at('quantity'))} />
          <Select
            label={t('donations.offerForm.unit')}
            data={DONATION_UNITS.map((u) => ({ value: u, label: t(`donations.units.${u}`) }))}
            allowDeselect={false}
            {...form.getInputProps(at('unit'))}
          />
          <DecimalInput
            label={t('donations.offerForm.netKg')}
            description={t('donations.offerForm.netKgHint')}
            {...form.getInputProps(at('net_kg'))}
          />
          <TextInput label={t('donations.offerForm.lot')} maxLength={100} {...form.getInputProps(at('lot'))} />
        </SimpleGrid>
        <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="sm">
          <TextInput type="date" label={t('donations.offerForm.bestBefore')} {...form.getInputProps(at('best_before'))} />
          <TextInput type="date" label={t('donations.offerForm.useBy')} {...form.getInputProps(at('use_by'))} />
          <Select
            label={t('donations.offerForm.storage')}
            data={DONATION_STORAGE.map((s) => ({ value: s, label: t(`donations.storage.${s}`) }))}
            allowDeselect={false}
            {...form.getInputProps(at('storage'))}
          />
        </SimpleGrid>
        <Checkbox label={t('donations.offerForm.cooked')} {...form.getInputProps(at('cooked'), { type: 'checkbox' })} />
        <Checkbox.Group label={t('donations.offerForm.allergens')} {...form.getInputProps(at('allergens'))}>
          <SimpleGrid cols={{ base: 2, sm: 4 }} mt="xs" spacing="xs">
            {ALLERGENS.map((a) => (
              <Checkbox key={a} value={a} label={t(`donations.allergens.${a}`)} />
            ))}
          </SimpleGrid>
        </Checkbox.Group>
        <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="sm">
          <DecimalInput label={t('donations.offerForm.temperature')} {...form.getInputProps(at('temperature_c'))} />
          <DecimalInput
            label={t('donations.offerForm.bookValue')}
            description={t('donations.offerForm.valuesHint')}
            {...form.getInputProps(at('book_value'))}
          />
          <DecimalInput
            label={t('donations.offerForm.marketValue')}
            description={t('donations.offerForm.valuesHint')}
            {...form.getInputProps(at('market_value'))}
          />
        </SimpleGrid>
        {removable && (
          <Group justify="flex-end">
            <ActionIcon
              variant="subtle"
              color="red"
              onClick={() => form.removeListItem('lines', index)}
              aria-label={t('donations.offerForm.removeLine', { n })}
            >
              <IconTrash size={18} aria-hidden />
            </ActionIcon>
          </Group>
        )}
      </Stack>
    </Fieldset>
  );
}
