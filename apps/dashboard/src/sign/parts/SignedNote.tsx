import { List, Paper, Stack, Text, Title } from '@mantine/core';
import type { DonationNote } from '@merma/schema';
import type { SignClient } from '../client.ts';
import { formatMoment } from '../format.ts';
import { useSignI18n } from '../i18n.ts';
import { Fingerprint } from './Fingerprint.tsx';
import { SignedTitle } from './SignedTitle.tsx';

type Signed = DonationNote & { signed: NonNullable<DonationNote['signed']> };

/**
 * The signed note: who signed and when, the answer per line, the PDF's SHA-256 (what the entity
 * can check its copy against), and the PDF and CSV to download.
 */
export function SignedNote({ note, alreadySigned, client }: { note: Signed; alreadySigned: boolean; client: SignClient }) {
  const { t, locale } = useSignI18n();
  const filename = (kind: 'pdf' | 'csv') => `albaran-donacion-${note.donation_id}.${kind}`;
  return (
    <Stack gap="lg">
      <SignedTitle
        title={t('sign.signed.title')}
        signedBy={t('sign.signed.by', { name: note.signed.name, date: formatMoment(locale, note.signed.signed_at) })}
        already={alreadySigned ? t('sign.signed.already') : null}
      />

      <Paper component="section" aria-labelledby="answer-title" withBorder p="md" radius="md">
        <Title order={2} size="h3" id="answer-title">
          {t('sign.signed.linesTitle')}
        </Title>
        <List mt="sm" spacing="xs">
          {note.lines.map((line) => (
            <List.Item key={line.id}>
              <Text span fw={600}>
                {line.position}. {line.description}
              </Text>
              {' — '}
              {line.status === 'refused' ? t('sign.signed.refusedWith', { reason: line.refusal_reason ?? '' }) : t('sign.signed.accepted')}
            </List.Item>
          ))}
        </List>
      </Paper>

      <Fingerprint
        title={t('sign.signed.hash')}
        sha256={note.signed.sha256}
        testId="note-sha256"
        files={[
          { label: t('sign.signed.downloadPdf'), filename: filename('pdf'), fetch: () => client.download('pdf'), primary: true },
          { label: t('sign.signed.downloadCsv'), filename: filename('csv'), fetch: () => client.download('csv') },
        ]}
        gone={t('sign.signed.downloadGone')}
      >
        {t('sign.signed.keep', { date: formatMoment(locale, note.expires_at) })}
      </Fingerprint>
    </Stack>
  );
}
