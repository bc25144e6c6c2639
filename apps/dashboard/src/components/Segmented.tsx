import { useId } from 'react';
import classes from './Segmented.module.css';

export type SegmentedProps = {
  value: string;
  onChange: (value: string) => void;
  data: readonly { value: string; label: string }[];
  size?: 'xs' | 'sm';
  'aria-label'?: string;
  'aria-labelledby'?: string;
};

/**
 * A choice of a few options side by side (an overview's range, a figure's chart or table, the
 * forecast's horizon): radio buttons of one group, the chosen one raised. It looks like Mantine's
 * SegmentedControl, which slides an indicator under the chosen option and so measures the page
 * when it mounts and whenever a neighbour changes size: on a phone, a forced layout of the whole
 * page inside the task that draws it (a fifth of a second at the mobile preset's 4× slowdown for
 * the overview's three). This one is drawn by CSS alone, nothing measured.
 */
export function Segmented({ value, onChange, data, size = 'sm', ...labelled }: SegmentedProps) {
  const name = useId();
  return (
    <div role="radiogroup" className={classes.root} data-size={size} {...labelled}>
      {data.map((item) => (
        <label key={item.value} className={classes.item} data-active={item.value === value || undefined}>
          <input
            type="radio"
            className={classes.input}
            name={name}
            value={item.value}
            checked={item.value === value}
            onChange={() => onChange(item.value)}
          />
          {item.label}
        </label>
      ))}
    </div>
  );
}
