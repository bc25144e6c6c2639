import { Button, Paper, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import { IconAlertTriangle, IconClockX, IconLinkOff, IconRefresh, IconWifiOff } from '@tabler/icons-react';
import { useEffect, useRef } from 'react';
import type { LinkProblem } from '../client.ts';
import { type SignKey, useSignI18n } from '../i18n.ts';
import type { LinkKind } from '../token.ts';

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

/** The problems a certificate's link words its own way (who to ask, what is signed); the others read the same for both. */
const CERTIFICATE_WORDS = ['invalid', 'expired', 'replaced', 'gone', 'used', 'offline'] as const;
type CertificateWords = (typeof CERTIFICATE_WORDS)[number];
const hasCertificateWords = (p: ScreenProblem): p is CertificateWords => (CERTIFICATE_WORDS as readonly string[]).includes(p);

function words(kind: LinkKind, problem: ScreenProblem): { titleKey: SignKey; bodyKey: SignKey } {
  if (kind === 'certificate' && hasCertificateWords(problem)) {
    return { titleKey: `sign.certificate.screens.${problem}.title`, bodyKey: `sign.certificate.screens.${problem}.body` };
  }
  return { titleKey: `sign.screens.${problem}.title`, bodyKey: `sign.screens.${problem}.body` };
}

/** Why the page cannot show the document, in the words of what the link is for (`kind`), with a retry when one can help. */
export function ProblemScreen({ problem, onRetry, kind = 'donation' }: { problem: ScreenProblem; onRetry: () => void; kind?: LinkKind }) {
  const { t } = useSignI18n();
  const headingRef = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    headingRef.current?.focus();
  }, []);
  const Icon = ICONS[problem];
  const retry = RETRYABLE.has(problem) || problem === 'crashed';
  const { titleKey, bodyKey } = words(kind, problem);
  return (
    <Paper withBorder p="lg" radius="md" data-problem={problem}>
      <Stack align="flex-start" gap="md">
        <ThemeIcon color={retry ? 'orange' : 'red'} variant="light" size={56} radius="xl" aria-hidden>
          <Icon size={32} />
        </ThemeIcon>
        <Title order={1} size="h2" ref={headingRef} tabIndex={-1}>
          {t(titleKey)}
        </Title>
        <Text size="lg">{t(bodyKey)}</Text>
        {retry && (
          <Button size="lg" leftSection={<IconRefresh aria-hidden />} onClick={onRetry}>
            {problem === 'crashed' ? t('sign.screens.reload') : t('sign.screens.retry')}
          </Button>
        )}
      </Stack>
    </Paper>
  );
}
