import { Select, Text, Textarea } from '@mantine/core';
import { useForm } from '@mantine/form';
import type { Destination, Donation, DonationLine } from '@merma/schema';
import { useMutation } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { ModalForm } from '../../components/SecretFormModal.tsx';
import { notifications } from '../../lib/notify.ts';
import { queryClient, trpc } from '../../trpc.ts';

type Props = {
  donation: Donation;
  line: DonationLine;
  destinations: Destination[];
  scope: { establishment_id: string; livemode: boolean };
  onDone: () => void;
};

/** The destinations a refused line may go to: those below donation in the food-waste hierarchy. */
export function belowDonation(destinations: Destination[]): Destination[] {
  const donation = destinations.find((d) => d.code === 'donation');
  return donation ? destinations.filter((d) => d.orden > donation.orden).sort((x, y) => x.orden - y.orden) : [];
}

/**
 * A refused line sent down the hierarchy (Ley 1/2025 art. 5): only the destinations below donation
 * are offered, and the server refuses any other; its record is corrected with the entity's reason
 * and the kitchen's note, never edited.
 */
export function RerouteForm({ donation, line, destinations, scope, onDone }: Props) {
  const { t } = useTranslation('donations');
  const choices = belowDonation(destinations);
  const form = useForm({
    initialValues: { destino_id: null as string | null, note: '' },
    validate: { destino_id: (v) => (v ? null : t('donations.rerouteForm.destinationRequired')) },
  });
  const reroute = useMutation({
    ...trpc.donations.rerouteLine.mutationOptions({
      onSuccess: async (_, sent) => {
        const destination = choices.find((d) => d.id === sent.destino_id)?.nombre ?? '';
        notifications.show({ color: 'teal', message: t('donations.rerouteForm.saved', { n: line.position, destination }) });
        await Promise.all([
          queryClient.invalidateQueries(trpc.donations.list.pathFilter()),
          queryClient.invalidateQueries(trpc.donations.get.pathFilter()),
          queryClient.invalidateQueries(trpc.records.pathFilter()),
          queryClient.invalidateQueries(trpc.analytics.pathFilter()),
        ]);
        onDone();
      },
    }),
    meta: { inlineError: true },
  });
  return (
    <ModalForm
      onSubmit={form.onSubmit((v) =>
        reroute.mutate({ ...scope, id: donation.id, line_id: line.id, destino_id: v.destino_id as string, note: v.note.trim() || null }),
      )}
      mutation={reroute}
      submitLabel={t('donations.rerouteForm.submit')}
      onCancel={onDone}
    >
      <Text size="sm">
        {t('donations.rerouteForm.hint', {
          entity: donation.entity_name,
          description: line.description,
          reason: line.refusal_reason ?? '',
        })}
      </Text>
      <Select
        label={t('donations.rerouteForm.destination')}
        required
        data={choices.map((d) => ({ value: d.id, label: d.nombre }))}
        data-autofocus
        {...form.getInputProps('destino_id')}
      />
      <Textarea label={t('donations.rerouteForm.note')} autosize minRows={2} maxLength={1000} {...form.getInputProps('note')} />
    </ModalForm>
  );
}
