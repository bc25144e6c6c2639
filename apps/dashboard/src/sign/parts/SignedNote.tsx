import { Alert, Button, Group, List, Paper, SimpleGrid, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import type { DonationNote } from '@merma/schema';
import { IconCircleCheck, IconDownload, IconInfoCircle } from '@tabler/icons-react';
import { useEffect, useRef, useState } from 'react';
import { LinkError, type SignClient, saveBlob } from '../client.ts';
import { formatMoment } from '../format.ts';
import { useSignI18n } from '../i18n.ts';
import classes from '../sign.module.css';

type Signed = DonationNote & { signed: NonNullable<DonationNote['signed']> };

/**
 * The signed note: who signed and when, the answer per line, the PDF's SHA-256 (what the entity
 * can check its copy against), and the PDF and CSV to download — fetched with the link's token
 * (never put in a URL) and saved from memory.
 */
export function SignedNote({ note, alreadySigned, client }: { note: Signed; alreadySigned: boolean; client: SignClient }) {
  const { t, locale } = useSignI18n();
  const headingRef = useRef<HTMLHeadingElement>(null);
  const [downloading, setDownloading] = useState<'pdf' | 'csv' | null>(null);
  const [failed, setFailed] = useState<'failed' | 'gone' | null>(null);

  useEffect(() => {
    headingRef.current?.focus();
  }, []);

  const download = async (kind: 'pdf' | 'csv') => {
    setDownloading(kind);
    setFailed(null);
    try {
      saveBlob(await client.download(kind), `albaran-donacion-${note.donation_id}.${kind}`);
    } catch (error) {
      if (!(error instanceof LinkError)) throw error;
      setFailed(error.linkDead ? 'gone' : 'failed');
    } finally {
      setDownloading(null);
    }
  };

  return (
    <Stack gap="lg">
      <Paper withBorder p="md" radius="md">
        <Group gap="sm" wrap="nowrap" align="center">
          <ThemeIcon color="teal" variant="light" size={48} radius="xl" aria-hidden>
            <IconCircleCheck size={32} />
          </ThemeIcon>
          <Title order={1} size="h2" ref={headingRef} tabIndex={-1}>
            {t('sign.signed.title')}
          </Title>
        </Group>
        <Text mt="sm" size="lg">
          {t('sign.signed.by', { name: note.signed.name, date: formatMoment(locale, note.signed.signed_at) })}
        </Text>
        {alreadySigned && (
          <Alert mt="md" color="yellow" icon={<IconInfoCircle aria-hidden />} role="status">
            {t('sign.signed.already')}
          </Alert>
        )}
      </Paper>

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

      <Paper component="section" aria-labelledby="hash-title" withBorder p="md" radius="md">
        <Title order={2} size="h3" id="hash-title">
          {t('sign.signed.hash')}
        </Title>
        <code className={classes.hash} data-testid="note-sha256">
          {note.signed.sha256}
        </code>
        <Text size="sm" c="dimmed" mt={6}>
          {t('sign.signed.hashHint')}
        </Text>
        <SimpleGrid mt="md" cols={{ base: 1, xs: 2 }} spacing="sm">
          <Button size="lg" leftSection={<IconDownload aria-hidden />} loading={downloading === 'pdf'} onClick={() => download('pdf')}>
            {t('sign.signed.downloadPdf')}
          </Button>
          <Button
            size="lg"
            variant="outline"
            leftSection={<IconDownload aria-hidden />}
            loading={downloading === 'csv'}
            onClick={() => download('csv')}
          >
            {t('sign.signed.downloadCsv')}
          </Button>
        </SimpleGrid>
        {failed && (
          <Alert mt="md" color="red" role="alert" icon={<IconInfoCircle aria-hidden />}>
            {failed === 'gone' ? t('sign.signed.downloadGone') : t('sign.signed.downloadFailed')}
          </Alert>
        )}
        <Text size="sm" mt="md">
          {t('sign.signed.keep', { date: formatMoment(locale, note.expires_at) })}
        </Text>
      </Paper>
    </Stack>
  );
}
