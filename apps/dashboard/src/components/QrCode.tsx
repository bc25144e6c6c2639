import { useMemo } from 'react';
import { encode } from 'uqr';

/**
 * A QR code drawn as one SVG path of its dark modules (uqr encodes; nothing is injected as markup),
 * named for screen readers by `label`. Pages that show one only after an action load this file
 * when they need it (`lazy`), so uqr is not in their first chunk.
 */
export function QrCode({ text, label, size = 176 }: { text: string; label: string; size?: number }) {
  const { path, modules } = useMemo(() => {
    const { data, size: n } = encode(text, { ecc: 'M', border: 2 });
    let d = '';
    data.forEach((row, y) => {
      row.forEach((dark, x) => {
        if (dark) d += `M${x} ${y}h1v1h-1z`;
      });
    });
    return { path: d, modules: n };
  }, [text]);
  return (
    <svg width={size} height={size} viewBox={`0 0 ${modules} ${modules}`} role="img" aria-label={label} shapeRendering="crispEdges">
      <rect width={modules} height={modules} fill="#fff" />
      <path d={path} fill="#000" />
    </svg>
  );
}
