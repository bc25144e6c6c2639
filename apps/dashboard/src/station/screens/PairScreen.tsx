import { Alert, Box, Button, Container, Group, Text, TextInput, Title } from '@mantine/core';
import { normalizePairingCode } from '@merma/schema/station';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { StationError } from '../client.ts';
import { LanguageControl } from '../parts/LanguageControl.tsx';
import classes from '../station.module.css';
import type { StationState } from '../useStation.ts';

/** A station not (or no longer) paired: the pairing code from the dashboard, typed or from its QR code. */
export function PairScreen({ station }: { station: StationState }) {
  const { t } = useTranslation('station');
  // A QR code from the dashboard opens /dashboard/station?code=…: the code is typed for the cook.
  const [code, setCode] = useState(() => new URLSearchParams(location.search).get('code') ?? '');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const submit = async () => {
    const normalized = normalizePairingCode(code);
    if (!normalized) return setError(t('station.pair.invalid'));
    setBusy(true);
    setError(undefined);
    try {
      await station.pair(normalized);
    } catch (err) {
      // Said in the tablet's language: no network, or a code the server refused (used, expired,
      // unknown); any other refusal in the server's words, which name what went wrong.
      if (err instanceof StationError)
        setError(err.status === 0 ? t('station.pair.offline') : err.status === 401 ? t('station.pair.refused') : err.message);
      else throw err;
    } finally {
      setBusy(false);
    }
  };
  return (
    <Box className={classes.shell}>
      <Container size={560} py={48}>
        <Group justify="space-between" mb="lg">
          <Title order={1}>{t('station.pair.title')}</Title>
          <LanguageControl />
        </Group>
        {station.status.unpaired && (
          <Alert color="orange" variant="light" mb="md">
            {t('station.pair.unpaired')}
          </Alert>
        )}
        <Text mb="lg">{t('station.pair.intro')}</Text>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void submit();
          }}
        >
          <TextInput
            size="xl"
            label={t('station.pair.code')}
            description={t('station.pair.codeHint')}
            value={code}
            onChange={(e) => setCode(e.currentTarget.value)}
            error={error}
            autoComplete="off"
            autoCapitalize="characters"
            spellCheck={false}
            styles={{ input: { letterSpacing: '0.15em', fontSize: '1.75rem', height: 64 } }}
          />
          <Button type="submit" size="xl" h={64} mt="lg" fullWidth loading={busy}>
            {t('station.pair.submit')}
          </Button>
        </form>
      </Container>
    </Box>
  );
}
