/** A segmented control's options as tall as every other target of the station (48 px). */
export const TALL_SEGMENTS = { label: { minHeight: 48, display: 'flex', alignItems: 'center', justifyContent: 'center' } } as const;

/** A dialog's close button as large as the station's other targets. */
export const bigClose = (label: string) => ({ 'aria-label': label, size: 'xl', style: { width: 48, height: 48 } }) as const;
