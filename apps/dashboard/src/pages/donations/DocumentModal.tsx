import { Alert, Button, Code, Group, Modal, Stack, Text } from '@mantine/core';
import { MAX_AGREEMENT_DOCUMENT_BYTES } from '@merma/schema';
import type { DashboardDonationAgreement } from '@merma/schema/dashboard';
import { IconCircleCheck } from '@tabler/icons-react';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { useFormat } from '../../lib/format.ts';
import { notifications } from '../../lib/notify.ts';
import { queryClient, trpc } from '../../trpc.ts';
import { uploadDocument } from './document.ts';
import { PdfFileInput } from './PdfFileInput.tsx';

const MAX_MIB = MAX_AGREEMENT_DOCUMENT_BYTES / (1024 * 1024);

/** Why a chosen file cannot be sent, before it is: not a PDF by its type or name, or over 10 MiB. */
function fileProblem(file: File): 'notPdf' | 'tooLarge' | null {
  if (file.type !== 'application/pdf' && !file.name.toLowerCase().endsWith('.pdf')) return 'notPdf';
  return file.size > MAX_AGREEMENT_DOCUMENT_BYTES ? 'tooLarge' : null;
}

/**
 * The signed agreement's PDF, uploaded (or replaced: one document per agreement): the file is sent
 * as it is, and once stored the SHA-256 the server computed of it is shown, to compare with the
 * signed copy. The server refuses what is not a PDF or is over 10 MiB whatever this page says.
 */
export function DocumentModal({ agreement, onClose }: { agreement: DashboardDonationAgreement; onClose: () => void }) {
  const { t } = useTranslation('donations');
  const { t: common } = useTranslation();
  const format = useFormat();
  const [file, setFile] = useState<File | null>(null);
  const [stored, setStored] = useState<DashboardDonationAgreement | null>(null);
  const upload = useMutation({
    mutationFn: (chosen: File) => uploadDocument(agreement.id, chosen),
    meta: { inlineError: true },
    onSuccess: async (saved) => {
      setStored(saved);
      notifications.show({ color: 'teal', message: t('donations.document.uploaded', { entity: saved.entity_name }) });
      await queryClient.invalidateQueries(trpc.donations.agreements.pathFilter());
    },
  });
  const problem = file ? fileProblem(file) : null;
  const current = (stored ?? agreement).document;

  return (
    <Modal opened onClose={onClose} title={t('donations.document.title', { entity: agreement.entity_name })}>
      {stored?.document ? (
        <Stack gap="sm">
          <Alert color="teal" variant="light" icon={<IconCircleCheck aria-hidden />} title={t('donations.document.storedTitle')}>
            {t('donations.document.stored', {
              date: format.dateTime(stored.document.uploaded_at),
              size: format.number(stored.document.size_bytes),
            })}
          </Alert>
          <Text size="sm" fw={600}>
            {t('donations.document.sha256')}
          </Text>
          <Code block data-testid="stored-sha256" style={{ overflowWrap: 'anywhere', whiteSpace: 'normal' }}>
            {stored.document.sha256}
          </Code>
          <Text size="xs" c="dimmed">
            {t('donations.document.sha256Hint')}
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
            {current && (
              <Text size="sm">
                {t('donations.document.replacing')} <Code style={{ overflowWrap: 'anywhere' }}>{current.sha256}</Code>
              </Text>
            )}
            <PdfFileInput
              label={t('donations.document.file')}
              description={t('donations.document.fileHint', { mib: MAX_MIB })}
              error={problem ? t(`donations.document.problems.${problem}`, { mib: MAX_MIB }) : undefined}
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
                {t('donations.document.send')}
              </Button>
            </Group>
          </Stack>
        </form>
      )}
    </Modal>
  );
}
