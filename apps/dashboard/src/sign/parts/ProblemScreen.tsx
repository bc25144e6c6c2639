import { Button, Paper, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import { IconAlertTriangle, IconClockX, IconLinkOff, IconRefresh, IconWifiOff } from '@tabler/icons-react';
import { useEffect, useRef } from 'react';
import type { LinkProblem } from '../client.ts';
import { useSignI18n } from '../i18n.ts';

/** What the page can end on instead of the donation: a link that does not work, or no answer. */
export type ScreenProblem = Exclude<LinkProblem, 'invalid_input'> | 'crashed';

const ICONS: Record<ScreenProblem, typeof IconLinkOff> = {
  invalid: IconLinkOff,
  expired: IconClockX,
  replaced: IconLinkOff,
  gone: IconLinkOff,
  used: IconLinkOff,
  answered: IconLinkOff,
  offline: IconWifiOff,
  server: IconAlertTriangle,
  rate_limited: IconAlertTriangle,
  crashed: IconAlertTriangle,
};

/** The problems worth trying again; the others need a new link from the kitchen. */
const RETRYABLE = new Set<ScreenProblem>(['offline', 'server', 'rate_limited']);

export function ProblemScreen({ problem, onRetry }: { problem: ScreenProblem; onRetry: () => void }) {
  const { t } = useSignI18n();
  const headingRef = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    headingRef.current?.focus();
  }, []);
  const Icon = ICONS[problem];
  const retry = RETRYABLE.has(problem) || problem === 'crashed';
  return (
    <Paper withBorder p="lg" radius="md" data-problem={problem}>
      <Stack align="flex-start" gap="md">
        <ThemeIcon color={retry ? 'orange' : 'red'} variant="light" size={56} radius="xl" aria-hidden>
          <Icon size={32} />
        </ThemeIcon>
        <Title order={1} size="h2" ref={headingRef} tabIndex={-1}>
          {t(`sign.screens.${problem}.title`)}
        </Title>
        <Text size="lg">{t(`sign.screens.${problem}.body`)}</Text>
        {retry && (
          <Button size="lg" leftSection={<IconRefresh aria-hidden />} onClick={onRetry}>
            {problem === 'crashed' ? t('sign.screens.reload') : t('sign.screens.retry')}
          </Button>
        )}
      </Stack>
    </Paper>
  );
}
