import { ModalsProvider } from '@mantine/modals';
import { useEffect } from 'react';

/**
 * Mantine's modals manager, in a chunk of its own (DeferredModals.tsx). `onReady` runs after the
 * provider's own effects, which attach its listeners (a sibling's effects run after those of the
 * siblings before it); its return value runs when the manager unmounts.
 */
export default function Modals({ onReady }: { onReady: () => () => void }) {
  return (
    <>
      <ModalsProvider />
      <Ready onReady={onReady} />
    </>
  );
}

function Ready({ onReady }: { onReady: () => () => void }) {
  // biome-ignore lint/correctness/useExhaustiveDependencies: once per mount; the callback's identity does not matter
  useEffect(() => onReady(), []);
  return null;
}
