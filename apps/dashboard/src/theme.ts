import {
  type CSSVariablesResolver,
  createTheme,
  darken,
  defaultVariantColorsResolver,
  type MantineThemeOverride,
  parseThemeColor,
  type VariantColorsResolver,
} from '@mantine/core';
import type { TFunction } from 'i18next';

/**
 * Text of light, subtle and outline variants (badges, alerts, the active nav link) in a darker shade
 * of its colour, so that it meets WCAG AA contrast (4.5:1) on its tinted background; Mantine's
 * default shade does not for yellow, orange, teal or green.
 */
const variantColorResolver: VariantColorsResolver = (input) => {
  const colors = defaultVariantColorsResolver(input);
  if (input.variant !== 'light' && input.variant !== 'subtle' && input.variant !== 'outline') return colors;
  const parsed = parseThemeColor({ color: input.color ?? input.theme.primaryColor, theme: input.theme });
  if (!parsed.isThemeColor || parsed.color === 'gray' || parsed.color === 'dark') return colors;
  const shade = input.theme.colors[parsed.color]?.[9];
  if (!shade) return colors;
  const text = darken(shade, 0.3);
  return { ...colors, color: text, hoverColor: text, border: input.variant === 'outline' ? `1px solid ${text}` : colors.border };
};

/**
 * Mantine's "dimmed" (gray-6) is 3.3:1 on white, under AA; gray-7 is well above it. Its error colour
 * (red-6, a field's error message and its text) is 3.6:1; red-9 is 5.4:1.
 */
export const cssVariablesResolver: CSSVariablesResolver = () => ({
  variables: {},
  light: { '--mantine-color-dimmed': 'var(--mantine-color-gray-7)', '--mantine-color-error': 'var(--mantine-color-red-9)' },
  dark: {},
});

/** The theme, with the accessible names of Mantine's own close buttons in the chosen language. */
export function buildTheme(t: TFunction): MantineThemeOverride {
  return themeWithCloseLabel(t('common.close'));
}

/** The theme, its close buttons named `close` (a page with messages of its own, the signing page, gives its word). */
export function themeWithCloseLabel(close: string): MantineThemeOverride {
  const closeButtonProps = { 'aria-label': close };
  return createTheme({
    primaryColor: 'teal',
    // The darkest teal keeps links and filled buttons above AA contrast on white and gray-0.
    primaryShade: { light: 9, dark: 6 },
    defaultRadius: 'md',
    variantColorResolver,
    components: {
      Modal: { defaultProps: { closeButtonProps } },
      Notification: { defaultProps: { closeButtonProps } },
      // A select's list of options is built when it opens, not with the page: Mantine keeps every
      // combobox's dropdown mounted (hidden) by default, which renders each list and positions it on
      // the first load (a forced layout per select, a tenth of a second on a phone's records page).
      Combobox: { defaultProps: { keepMounted: false } },
      // Placeholders hold still. A pulsing one is an animation the compositor draws at 60 frames a
      // second for as long as the page loads, beside the page's own work: in Lighthouse's traces of
      // the records page on a phone, the display compositor's CPU fell from 420–620 ms to 117–227 ms
      // per load without it, and the page's blocking time by a fifth (overview) to a
      // third (records). Still grey blocks say "something comes here" as well, and ask nothing of
      // a reduced-motion setting.
      Skeleton: { defaultProps: { animate: false } },
    },
  });
}
