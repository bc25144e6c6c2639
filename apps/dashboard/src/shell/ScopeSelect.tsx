import { Select, type SelectProps } from '@mantine/core';

/**
 * Mantine's Select for the header's organisation and establishment pickers on wide screens, in a
 * chunk of its own (ScopeControls.tsx loads it): its dropdown's code (Combobox, Popover, Floating
 * UI) is not part of a phone's first load, where the pickers are the browser's own.
 */
export default function ScopeSelect(props: SelectProps) {
  return <Select {...props} />;
}
