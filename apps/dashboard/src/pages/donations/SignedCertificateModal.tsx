import { Alert, Button, Code, Group, Modal, Stack, Text } from '@mantine/core';
import { type DonationSignedCertificate, type DonationTaxPack, MAX_SIGNED_CERTIFICATE_BYTES } from '@merma/schema';
import { IconCircleCheck } from '@tabler/icons-react';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { useFormat } from '../../lib/format.ts';
import { notifications } from '../../lib/notify.ts';
import { queryClient, trpc } from '../../trpc.ts';
import { PdfFileInput } from './PdfFileInput.tsx';
import { uploadSignedCertificate } from './tax-pack.ts';

const MAX_MIB = MAX_SIGNED_CERTIFICATE_BYTES / (1024 * 1024);

/** Whose certificate: an entity of the pack, for one company's gifts of one year, in one mode. */
export type SignedCertificateTarget = {
  entity: DonationTaxPack['taxpayers'][number]['entities'][number];
  cif: string;
  year: number;
  livemode: boolean;
};

/** Why a chosen file cannot be sent, before it is: not a PDF by its type or name, or over 10 MiB. */
function fileProblem(file: File): 'notPdf' | 'tooLarge' | null {
  if (file.type !== 'application/pdf' && !file.name.toLowerCase().endsWith('.pdf')) return 'notPdf';
  return file.size > MAX_SIGNED_CERTIFICATE_BYTES ? 'tooLarge' : null;
}

/**
 * The certificate the entity signed, uploaded (or replaced: one per company, entity, year and mode):
 * the file is sent as it is, and once stored the SHA-256 the server computed of it is shown, to
 * compare with the signed copy; the pack is read again to show it received. The server refuses
 * what is not a PDF or is over 10 MiB, and a member who may not upload, whatever this page says.
 */
export function SignedCertificateModal({ target, onClose }: { target: SignedCertificateTarget; onClose: () => void }) {
  const { t } = useTranslation('donations');
  const { t: common } = useTranslation();
  const format = useFormat();
  const [file, setFile] = useState<File | null>(null);
  const [stored, setStored] = useState<DonationSignedCertificate | null>(null);
  const { entity, cif, year, livemode } = target;
  const upload = useMutation({
    mutationFn: (chosen: File) => uploadSignedCertificate(entity.entity_id, cif, { year, livemode }, chosen),
    meta: { inlineError: true },
    onSuccess: async (saved) => {
      setStored(saved);
      notifications.show({ color: 'teal', message: t('donations.taxPack.signed.uploaded', { entity: entity.name }) });
      await queryClient.invalidateQueries(trpc.donations.taxPack.pathFilter());
    },
  });
  const problem = file ? fileProblem(file) : null;

  return (
    <Modal opened onClose={onClose} title={t('donations.taxPack.signed.title', { entity: entity.name, year, cif })}>
      {stored ? (
        <Stack gap="sm">
          <Alert color="teal" variant="light" icon={<IconCircleCheck aria-hidden />} title={t('donations.taxPack.signed.storedTitle')}>
            {t('donations.taxPack.signed.stored', { date: format.dateTime(stored.uploaded_at), size: format.number(stored.size_bytes) })}
          </Alert>
          <Text size="sm" fw={600}>
            {t('donations.taxPack.signed.sha256')}
          </Text>
          <Code block data-testid="signed-sha256" style={{ overflowWrap: 'anywhere', whiteSpace: 'normal' }}>
            {stored.sha256}
          </Code>
          <Text size="xs" c="dimmed">
            {t('donations.taxPack.signed.sha256Hint')}
          </Text>
          <Group justify="flex-end">
            <Button onClick={onClose}>{common('common.close')}</Button>
          </Group>
        </Stack>
      ) : (
        <form
          noValidate
          onSubmit={(event) => {
            event.preventDefault();
            if (file && !problem) upload.mutate(file);
          }}
        >
          <Stack gap="sm">
            {entity.signed_certificate && (
              <Text size="sm">
                {t('donations.taxPack.signed.replacing')}{' '}
                <Code style={{ overflowWrap: 'anywhere' }}>{entity.signed_certificate.sha256}</Code>
              </Text>
            )}
            <PdfFileInput
              label={t('donations.taxPack.signed.file')}
              description={t('donations.taxPack.signed.fileHint', { mib: MAX_MIB })}
              error={problem ? t(`donations.taxPack.signed.problems.${problem}`, { mib: MAX_MIB }) : undefined}
              onChange={(picked) => {
                setFile(picked);
                upload.reset();
              }}
            />
            {upload.error && <ErrorAlert error={upload.error} />}
            <Group justify="flex-end">
              <Button variant="default" onClick={onClose}>
                {common('common.cancel')}
              </Button>
              <Button type="submit" disabled={!file || problem !== null} loading={upload.isPending}>
                {t('donations.taxPack.signed.send')}
              </Button>
            </Group>
          </Stack>
        </form>
      )}
    </Modal>
  );
}
