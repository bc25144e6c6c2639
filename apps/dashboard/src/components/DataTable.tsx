import { ActionIcon, Table, Text, VisuallyHidden } from '@mantine/core';
import { IconChevronDown, IconChevronRight } from '@tabler/icons-react';
import { Fragment, type ReactNode, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { i18n } from '../i18n/index.ts';

export type Column<T> = {
  key: string;
  header: string;
  /** Keep the header for screen readers only (e.g. a column of action buttons). */
  hideHeader?: boolean;
  render: (row: T) => ReactNode;
};

type Props<T> = {
  /** Names the table for assistive technology (shown as its caption). */
  caption: string;
  columns: Column<T>[];
  rows: readonly T[];
  rowKey: (row: T) => string;
  /** Text of the single row shown when there are none. */
  empty: string;
  /** When given, each row gets a toggle that shows this under it. */
  renderExpanded?: (row: T) => ReactNode;
  /** Name of a row for the expand toggle's label. */
  rowLabel?: (row: T) => string;
  minWidth?: number;
};

/** The dashboard's table: caption, real headers, an empty state and optional expandable rows. */
export function DataTable<T>({ caption, columns, rows, rowKey, empty, renderExpanded, rowLabel, minWidth = 720 }: Props<T>) {
  const { t } = useTranslation();
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(new Set());
  const toggle = (key: string) =>
    setExpanded((prev) => {
      const next = new Set(prev);
      if (next.has(key)) next.delete(key);
      else next.add(key);
      return next;
    });
  const columnCount = columns.length + (renderExpanded ? 1 : 0);

  return (
    // The element that scrolls sideways on a phone is itself focusable and named after the table (a
    // region labelled by its caption), so that keyboard users can scroll it and screen readers
    // announce what it holds: axe's scrollable-region-focusable. A native scroller, since Mantine's
    // ScrollArea scrolls an inner element the props do not reach reliably. Positioned, so that the
    // visually hidden caption (absolutely placed) stays inside it instead of widening the page.
    <Table.ScrollContainer
      minWidth={minWidth}
      type="native"
      pos="relative"
      tabIndex={0}
      role="region"
      aria-label={caption}
      className="mantine-focus-auto"
    >
      <Table striped highlightOnHover verticalSpacing="sm" captionSide="top">
        <Table.Caption>
          <VisuallyHidden>{caption}</VisuallyHidden>
        </Table.Caption>
        <Table.Thead>
          <Table.Tr>
            {renderExpanded && (
              <Table.Th w={48}>
                <VisuallyHidden>{t('table.details')}</VisuallyHidden>
              </Table.Th>
            )}
            {columns.map((c) => (
              <Table.Th key={c.key}>{c.hideHeader ? <VisuallyHidden>{c.header}</VisuallyHidden> : c.header}</Table.Th>
            ))}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.length === 0 && (
            <Table.Tr>
              <Table.Td colSpan={columnCount}>
                <Text c="dimmed" size="sm" ta="center" py="md">
                  {empty}
                </Text>
              </Table.Td>
            </Table.Tr>
          )}
          {rows.map((row) => {
            const key = rowKey(row);
            const open = expanded.has(key);
            const label = rowLabel?.(row) ?? key;
            return (
              <Fragment key={key}>
                <tr {...bodyRow}>
                  {renderExpanded && (
                    <td className={cellClass}>
                      <ActionIcon
                        variant="subtle"
                        color="gray"
                        onClick={() => toggle(key)}
                        aria-expanded={open}
                        aria-label={open ? t('table.hideDetails', { row: label }) : t('table.showDetails', { row: label })}
                      >
                        {open ? <IconChevronDown size={16} aria-hidden /> : <IconChevronRight size={16} aria-hidden />}
                      </ActionIcon>
                    </td>
                  )}
                  {columns.map((c) => (
                    <td key={c.key} className={cellClass}>
                      {c.render(row)}
                    </td>
                  ))}
                </tr>
                {renderExpanded && open && (
                  <Table.Tr>
                    <Table.Td colSpan={columnCount} bg="var(--mantine-color-gray-0)">
                      {renderExpanded(row)}
                    </Table.Td>
                  </Table.Tr>
                )}
              </Fragment>
            );
          })}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

/**
 * The body's rows and cells as plain elements carrying exactly what Mantine's `Table.Tr` and
 * `Table.Td` render inside this table (`striped`, `highlightOnHover`, row borders by default):
 * its classes and data attributes, so the theme's table styles apply unchanged. Each `Table.Td` is
 * a `useProps`, a context read, a style computation and a `Box`; a page of 50 records is 500 of
 * them, and React's commit of that table was the records page's longest task on a phone (100–180 ms
 * at full speed). The header, the empty row and an expanded row keep Mantine's components.
 */
const bodyRow = {
  className: `${Table.classes.tr} mantine-Table-tr`,
  'data-with-row-border': true,
  'data-striped': 'odd',
  'data-hover': true,
} as const;
const cellClass = `${Table.classes.td} mantine-Table-td`;

const dimmed = { color: 'var(--mantine-color-dimmed)' };
const emptyMarks = new Map<string, string>();

/**
 * The mark of an empty cell: a plain span, with no hook of its own. A table has hundreds of them
 * (the records page, up to four per row), and each `useTranslation` and Mantine `Text` was a
 * subscription and a style computation in the page's first render (55 ms of the records page's
 * load at a phone's 4× slowdown, in a CPU profile). Its text is read from the shared instance: a
 * change of language re-renders the table that holds it, which reads its words with
 * `useTranslation`. Looked up once per language (i18next's `t` is a lookup, an interpolation and
 * a few allocations: again per cell, it cost as much as the hooks it replaced).
 */
export function EmptyCell() {
  let mark = emptyMarks.get(i18n.language);
  if (mark === undefined) {
    mark = i18n.t('common.emptyCell');
    emptyMarks.set(i18n.language, mark);
  }
  return <span style={dimmed}>{mark}</span>;
}
