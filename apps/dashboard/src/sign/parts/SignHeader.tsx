import { Box, Group, SegmentedControl, Text } from '@mantine/core';
import { changeLanguage, SIGN_LANGUAGES, type SignLanguage, useSignI18n } from '../i18n.ts';
import classes from '../sign.module.css';

/** Options as tall as the page's other targets (48 px). */
const TALL = { label: { minHeight: 48, display: 'flex', alignItems: 'center', justifyContent: 'center' } } as const;

/** Whose page this is, what is signed on it, and the language switch (each language named in itself). */
export function SignHeader({ subtitle }: { subtitle: string }) {
  const { t, language } = useSignI18n();
  return (
    <Group component="header" className={classes.header} justify="space-between" wrap="nowrap" gap="xs">
      <Box flex={1} miw={0}>
        <Text fw={800} size="lg" lh={1.2}>
          {t('sign.app.brand')}
        </Text>
        <Text size="sm" c="dimmed">
          {subtitle}
        </Text>
      </Box>
      <SegmentedControl
        aria-label={t('sign.app.language')}
        styles={TALL}
        value={language}
        onChange={(value) => changeLanguage(value as SignLanguage)}
        data={SIGN_LANGUAGES.map((l) => ({ value: l, label: <span lang={l}>{t(`sign.app.languages.${l}`)}</span> }))}
      />
    </Group>
  );
}
