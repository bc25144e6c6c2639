import { Button, Group, Stack, Text, TextInput } from '@mantine/core';
import { IconEraser } from '@tabler/icons-react';
import { useEffect, useRef } from 'react';
import SignaturePad from 'signature_pad';
import type { SignT } from '../i18n.ts';
import classes from '../sign.module.css';
import { MAX_NAME_LENGTH, type Problem, problemText, type SignatureAnswer } from '../signer.ts';
import { ChoiceGroup } from './ChoiceGroup.tsx';

/** Pixels per CSS pixel the signature is drawn at: sharp on a phone's screen, and a PNG well under the server's limit. */
const MAX_RATIO = 2;

/**
 * The signature: drawn with a finger or the mouse on a canvas (signature_pad), or — for those who
 * cannot draw it (keyboard and screen-reader users, among others) — the signer's name typed as
 * their signature, which the note records as such. The drawing is taken as a PNG at the end of each
 * stroke.
 */
export function SignatureField({
  value,
  onChange,
  problem,
  focusTarget,
  t,
}: {
  value: SignatureAnswer;
  onChange: (value: SignatureAnswer) => void;
  problem: Problem | undefined;
  focusTarget: (el: HTMLElement | null) => void;
  t: SignT;
}) {
  const error = problemText(t, problem);
  return (
    <Stack gap="sm">
      <ChoiceGroup<SignatureAnswer['kind']>
        name="signature-kind"
        legend={t('sign.signature.legend')}
        options={[
          { value: 'drawn', label: t('sign.signature.draw') },
          { value: 'typed', label: t('sign.signature.type') },
        ]}
        value={value.kind}
        onChange={(kind) => onChange(kind === 'drawn' ? { kind, png: null } : { kind, text: '' })}
        // A drawing's problem is said here, tied to the radio that takes focus (a canvas cannot).
        error={value.kind === 'drawn' ? error : undefined}
        errorId="signature-error"
        focusRef={value.kind === 'drawn' ? focusTarget : undefined}
      />
      {value.kind === 'drawn' ? (
        <DrawnSignature
          hasDrawing={value.png !== null}
          onChange={(png) => onChange({ kind: 'drawn', png })}
          invalid={error !== undefined}
          t={t}
        />
      ) : (
        <Stack gap={4}>
          <TextInput
            ref={focusTarget}
            id="signature-typed"
            size="lg"
            label={t('sign.signature.typed')}
            autoComplete="name"
            maxLength={MAX_NAME_LENGTH}
            value={value.text}
            onChange={(e) => onChange({ kind: 'typed', text: e.currentTarget.value })}
            error={error}
          />
          {value.text.trim() && (
            <div className={classes.typedPreview} aria-hidden>
              {value.text}
            </div>
          )}
        </Stack>
      )}
    </Stack>
  );
}

function DrawnSignature({
  hasDrawing,
  onChange,
  invalid,
  t,
}: {
  hasDrawing: boolean;
  onChange: (png: string | null) => void;
  invalid: boolean;
  t: SignT;
}) {
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const padRef = useRef<SignaturePad | null>(null);
  const changed = useRef(onChange);
  changed.current = onChange;

  useEffect(() => {
    const canvas = canvasRef.current;
    // No 2D context (a test's DOM): nothing to draw on.
    if (!canvas?.getContext('2d')) return;
    const pad = new SignaturePad(canvas, { backgroundColor: 'rgb(255, 255, 255)', penColor: '#1a1b1e', minWidth: 1, maxWidth: 3 });
    padRef.current = pad;
    // The canvas's pixels follow its size on the page (and the screen's density), the drawing kept
    // across a change (a phone turned on its side).
    const fitToSize = () => {
      const ratio = Math.min(Math.max(window.devicePixelRatio || 1, 1), MAX_RATIO);
      const width = Math.round(canvas.offsetWidth * ratio);
      const height = Math.round(canvas.offsetHeight * ratio);
      if (!width || !height || (canvas.width === width && canvas.height === height)) return;
      const strokes = pad.toData();
      canvas.width = width;
      canvas.height = height;
      canvas.getContext('2d')?.scale(ratio, ratio);
      pad.clear();
      if (strokes.length) pad.fromData(strokes);
    };
    fitToSize();
    const resized = new ResizeObserver(fitToSize);
    resized.observe(canvas);
    const ended = () => changed.current(pad.isEmpty() ? null : pad.toDataURL('image/png'));
    pad.addEventListener('endStroke', ended);
    return () => {
      resized.disconnect();
      pad.removeEventListener('endStroke', ended);
      pad.off();
      padRef.current = null;
    };
  }, []);

  const clear = () => {
    padRef.current?.clear();
    onChange(null);
  };

  return (
    <Stack gap={6}>
      <Text size="sm" c="dimmed" id="signature-hint">
        {t('sign.signature.drawHint')}
      </Text>
      <canvas
        ref={canvasRef}
        className={classes.canvas}
        role="img"
        aria-label={t('sign.signature.canvas')}
        aria-describedby={invalid ? 'signature-hint signature-error' : 'signature-hint'}
        data-invalid={invalid || undefined}
        data-testid="signature-canvas"
      />
      <Group justify="space-between" wrap="wrap" gap="xs">
        <Text size="sm" c="dimmed" aria-live="polite">
          {hasDrawing ? t('sign.signature.captured') : t('sign.signature.empty')}
        </Text>
        <Button variant="default" size="lg" leftSection={<IconEraser size={20} aria-hidden />} onClick={clear} disabled={!hasDrawing}>
          {t('sign.signature.clear')}
        </Button>
      </Group>
    </Stack>
  );
}
