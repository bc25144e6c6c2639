import { Alert, Button, Paper, SimpleGrid, Text, Title } from '@mantine/core';
import { IconDownload, IconInfoCircle } from '@tabler/icons-react';
import { type ReactNode, useId, useState } from 'react';
import { LinkError, saveBlob } from '../client.ts';
import { useSignI18n } from '../i18n.ts';
import classes from '../sign.module.css';

/** A file of the signed document: its button, and how it is fetched (with the link's token) and named when saved. */
export type SignedFile = { label: string; filename: string; fetch: () => Promise<Blob>; primary?: boolean };

/**
 * A signed document's SHA-256 (what the signer can check their copy against) and its files to
 * download — fetched with the link's token (never put in a URL) and saved from memory. A download
 * that fails says why: the connection, or a link that no longer downloads (`gone`).
 */
export function Fingerprint({
  title,
  sha256,
  testId,
  files,
  gone,
  children,
}: {
  title: string;
  sha256: string;
  testId: string;
  files: readonly SignedFile[];
  /** What to say when the link no longer downloads the document. */
  gone: string;
  /** Said below the files (until when the link downloads them). */
  children?: ReactNode;
}) {
  const { t } = useSignI18n();
  const titleId = useId();
  const [downloading, setDownloading] = useState<string | null>(null);
  const [failed, setFailed] = useState<'failed' | 'gone' | null>(null);

  const download = async (file: SignedFile) => {
    setDownloading(file.filename);
    setFailed(null);
    try {
      saveBlob(await file.fetch(), file.filename);
    } catch (error) {
      if (!(error instanceof LinkError)) throw error;
      setFailed(error.linkDead ? 'gone' : 'failed');
    } finally {
      setDownloading(null);
    }
  };

  return (
    <Paper component="section" aria-labelledby={titleId} withBorder p="md" radius="md">
      <Title order={2} size="h3" id={titleId}>
        {title}
      </Title>
      <code className={classes.hash} data-testid={testId}>
        {sha256}
      </code>
      <Text size="sm" c="dimmed" mt={6}>
        {t('sign.signed.hashHint')}
      </Text>
      <SimpleGrid mt="md" cols={{ base: 1, xs: Math.min(files.length, 2) }} spacing="sm">
        {files.map((file) => (
          <Button
            key={file.filename}
            size="lg"
            variant={file.primary ? 'filled' : 'outline'}
            leftSection={<IconDownload aria-hidden />}
            loading={downloading === file.filename}
            onClick={() => download(file)}
          >
            {file.label}
          </Button>
        ))}
      </SimpleGrid>
      {failed && (
        <Alert mt="md" color="red" role="alert" icon={<IconInfoCircle aria-hidden />}>
          {failed === 'gone' ? gone : t('sign.signed.downloadFailed')}
        </Alert>
      )}
      {children && (
        <Text size="sm" mt="md">
          {children}
        </Text>
      )}
    </Paper>
  );
}
