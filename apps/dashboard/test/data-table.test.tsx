import { MantineProvider, Table } from '@mantine/core';
import { render, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { DataTable } from '../src/components/DataTable.tsx';
import { i18n } from '../src/i18n/index.ts';
import { buildTheme, cssVariablesResolver } from '../src/theme.ts';

function inApp(ui: React.ReactNode) {
  return render(
    <MantineProvider theme={buildTheme(i18n.t)} env="test" defaultColorScheme="light" cssVariablesResolver={cssVariablesResolver}>
      {ui}
    </MantineProvider>,
  );
}

/** An element's class and attributes, without its content. */
function shape(element: Element) {
  return Object.fromEntries([...element.attributes].map((a) => [a.name, a.value]));
}

describe('DataTable', () => {
  // The body's rows and cells are plain elements (a page of records is 500 cells); they must carry
  // what Mantine's own Table.Tr and Table.Td render in a table set up like DataTable's, or the
  // theme's stripes, borders and hover no longer reach them (a Mantine upgrade can change these).
  it("renders body rows and cells as Mantine's Table.Tr and Table.Td would", () => {
    inApp(
      <>
        <DataTable
          caption="Ours"
          columns={[{ key: 'name', header: 'Name', render: (row: string) => row }]}
          rows={['Croissant']}
          rowKey={(row) => row}
          empty="None"
        />
        <Table striped highlightOnHover verticalSpacing="sm" captionSide="top" aria-label="Mantine's">
          <Table.Tbody>
            <Table.Tr>
              <Table.Td>Croissant</Table.Td>
            </Table.Tr>
          </Table.Tbody>
        </Table>
      </>,
    );
    const ours = within(screen.getByRole('table', { name: 'Ours' })).getByRole('cell', { name: 'Croissant' });
    const mantines = within(screen.getByRole('table', { name: "Mantine's" })).getByRole('cell', { name: 'Croissant' });
    expect(shape(ours)).toEqual(shape(mantines));
    expect(shape(ours.parentElement as Element)).toEqual(shape(mantines.parentElement as Element));
    expect(ours.parentElement).toHaveAttribute('data-striped', 'odd');
  });
});
