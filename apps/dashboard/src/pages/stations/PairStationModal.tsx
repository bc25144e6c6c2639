import { Button, Code, Group, Modal, Stack, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { DashboardStartPairingInput, type StartedPairing } from '@merma/schema/dashboard';
import { useTranslation } from 'react-i18next';
import { QrCode } from '../../components/QrCode.tsx';
import { ModalForm, useMutationKeepingResult } from '../../components/SecretFormModal.tsx';
import { useFormat } from '../../lib/format.ts';
import { rule } from '../../lib/validation.ts';
import { trpc } from '../../trpc.ts';

/**
 * Pairs a kitchen tablet in two steps: its name, then its one-time code, shown this once (the
 * server keeps its hash) with a QR code that opens the station's page with the code typed in.
 * Render it only while open (its state starts afresh each time).
 */
export function PairStationModal({ onClose, scope }: { onClose: () => void; scope: { establishment_id: string; livemode: boolean } }) {
  const { t } = useTranslation('station');
  const { t: common } = useTranslation();
  const form = useForm({
    initialValues: { name: '' },
    validate: { name: rule(DashboardStartPairingInput.shape.name, common('validation.keyName')) },
  });
  const { mutation: start, result: started } = useMutationKeepingResult(
    trpc.stations.startPairing.mutationOptions(),
    trpc.stations.pathFilter(),
  );
  return (
    <Modal
      opened
      onClose={onClose}
      title={started ? t('stations.code.title', { name: started.device.name }) : t('stations.form.title')}
      size="lg"
    >
      {started ? (
        <PairingCode started={started} onDone={onClose} />
      ) : (
        <ModalForm
          onSubmit={form.onSubmit((values) => start.mutate({ ...scope, name: values.name.trim() }))}
          mutation={start}
          submitLabel={t('stations.form.submit')}
          onCancel={onClose}
        >
          <TextInput
            label={t('stations.form.name')}
            description={t('stations.form.nameHint')}
            required
            data-autofocus
            {...form.getInputProps('name')}
          />
        </ModalForm>
      )}
    </Modal>
  );
}

/** The code as large as a cook reads it across a counter, its QR code, and until when it works. */
function PairingCode({ started, onDone }: { started: StartedPairing; onDone: () => void }) {
  const { t } = useTranslation('station');
  const format = useFormat();
  const address = `${location.origin}/dashboard/station`;
  const link = `${address}?code=${encodeURIComponent(started.code)}`;
  return (
    <Stack>
      <Text>{t('stations.code.steps', { url: address })}</Text>
      <Group align="center" gap="xl" wrap="wrap">
        <Code fz={40} fw={800} px="md" py="xs" style={{ letterSpacing: '0.12em' }} data-testid="pairing-code">
          {started.code}
        </Code>
        <QrCode text={link} label={t('stations.code.qr')} />
      </Group>
      <Text size="sm" c="dimmed">
        {t('stations.code.expires', { time: format.dateTime(started.expires_at) })}
      </Text>
      <Group justify="flex-end">
        <Button onClick={onDone}>{t('stations.code.done')}</Button>
      </Group>
    </Stack>
  );
}
