import { Input } from '@mantine/core';
import { useId } from '@mantine/hooks';

type Props = { label: string; description: string; error: string | undefined; onChange: (file: File | null) => void };

/**
 * The PDF picker of the Donations page's uploads (a signed agreement, a signed certificate): the
 * browser's own file input, whose label, hint and refusal are tied to it for a screen reader.
 */
export function PdfFileInput({ label, description, error, onChange }: Props) {
  const inputId = useId();
  return (
    <Input.Wrapper id={inputId} label={label} description={description} error={error}>
      <input
        id={inputId}
        type="file"
        accept="application/pdf,.pdf"
        aria-describedby={`${inputId}-description${error ? ` ${inputId}-error` : ''}`}
        aria-invalid={error !== undefined}
        style={{ display: 'block', marginTop: 6 }}
        onChange={(event) => onChange(event.currentTarget.files?.[0] ?? null)}
      />
    </Input.Wrapper>
  );
}
