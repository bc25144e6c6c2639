import type { Ref } from 'react';
import classes from '../sign.module.css';

export type ChoiceOption<V extends string> = { value: V; label: string; tone?: 'refuse' };

/**
 * A radio group as a fieldset with its legend (screen readers name the group by it), each option a
 * whole card to tap (at least 56 px tall), native radios underneath: arrow keys move between the
 * options, Space chooses. A problem is said under the options and tied to each radio.
 */
export function ChoiceGroup<V extends string>({
  name,
  legend,
  description,
  options,
  value,
  onChange,
  error,
  errorId,
  focusRef,
  layout = 'pair',
}: {
  name: string;
  legend: string;
  description?: string;
  options: readonly ChoiceOption<V>[];
  value: V | null;
  onChange: (value: V) => void;
  error?: string | undefined;
  errorId: string;
  /** Gets the radio that takes focus when the group has a problem: the chosen one, else the first. */
  focusRef?: Ref<HTMLInputElement>;
  layout?: 'pair' | 'list';
}) {
  const focused = options.find((o) => o.value === value)?.value ?? options[0]?.value;
  const descriptionId = `${errorId}-description`;
  const describedBy = [description ? descriptionId : null, error ? errorId : null].filter(Boolean).join(' ') || undefined;
  return (
    <fieldset className={classes.fieldset}>
      <legend className={classes.legend}>{legend}</legend>
      {description && (
        <div id={descriptionId} className={classes.hint}>
          {description}
        </div>
      )}
      <div className={layout === 'pair' ? classes.choices : classes.reasons}>
        {options.map((o) => (
          <label
            key={o.value}
            className={classes.choice}
            data-checked={value === o.value || undefined}
            data-tone={o.tone}
            data-invalid={error ? true : undefined}
          >
            <input
              type="radio"
              name={name}
              value={o.value}
              checked={value === o.value}
              onChange={() => onChange(o.value)}
              aria-describedby={describedBy}
              ref={o.value === focused ? focusRef : undefined}
            />
            <span>{o.label}</span>
          </label>
        ))}
      </div>
      {error && (
        <div id={errorId} className={classes.error}>
          {error}
        </div>
      )}
    </fieldset>
  );
}
