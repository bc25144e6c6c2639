/**
 * A badge that is never cut to an ellipsis ("A PUNTO DE VEN…"): a status or a flag people must read
 * whole. It keeps its width and wraps when it is wider than its cell, as the overview's period badges do.
 */
export const WHOLE_BADGE = {
  root: { flexShrink: 0, maxWidth: '100%', height: 'auto' },
  label: { whiteSpace: 'normal', overflow: 'visible' },
} as const;
