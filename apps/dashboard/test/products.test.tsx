import type { Product } from '@merma/schema';
import { ROLES, type Role } from '@merma/schema/dashboard';
import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { ApiError, api } from './support/api.ts';
import { appFixtures } from './support/fixtures.ts';
import { renderApp, t } from './support/render.tsx';

const croissant: Product = {
  id: 'a1f0c0de-0000-4000-8000-000000000001',
  name: 'Croissant',
  food_category: 'bakery',
  ean: '8410000000023',
  pos_ref: 'SQ-1',
  unit_weight_kg: 0.06,
  density_kg_per_l: null,
  price: 1.2,
  unit_cost: 0.4,
  salvage_value: null,
  active: true,
};

describe('products: who sees what', () => {
  // Every role has a line: a role added to the schema fails the typecheck until it is decided here.
  const manages: Record<Role, boolean> = { owner: true, admin: true, developer: true, viewer: false };
  it.each(ROLES)('%s', async (role) => {
    api.use({ ...appFixtures(role), 'catalog.products': [croissant] });
    await renderApp('/products');
    const table = screen.getByRole('table', { name: t('products.title') });
    expect(within(table).getByText('Croissant')).toBeInTheDocument();
    if (manages[role]) {
      expect(screen.getByRole('button', { name: t('products.add') })).toBeInTheDocument();
      expect(screen.getByRole('button', { name: t('products.deactivateLabel', { name: 'Croissant' }) })).toBeInTheDocument();
      expect(screen.getByRole('heading', { name: t('products.import.title') })).toBeInTheDocument();
    } else {
      expect(screen.queryByRole('button', { name: t('products.add') })).not.toBeInTheDocument();
      expect(screen.queryByRole('heading', { name: t('products.import.title') })).not.toBeInTheDocument();
      expect(screen.getByText(t('products.readOnly'))).toBeInTheDocument();
    }
  });
});

describe('products: states and forms', () => {
  it('says there are none yet, and why they matter', async () => {
    api.use({ ...appFixtures('owner'), 'catalog.products': [] });
    await renderApp('/products');
    expect(screen.getByText(t('products.empty'))).toBeInTheDocument();
  });

  it('checks the form before sending: a wrong EAN and a cost above the price are said under their fields', async () => {
    api.use({ ...appFixtures('owner'), 'catalog.products': [] });
    const { user } = await renderApp('/products');
    await user.click(screen.getByRole('button', { name: t('products.add') }));
    const dialog = await screen.findByRole('dialog', { name: t('products.form.newTitle') });
    await user.type(within(dialog).getByLabelText(t('products.form.name')), 'Barra');
    await user.type(within(dialog).getByLabelText(t('products.form.ean')), '8410000000024');
    await user.type(within(dialog).getByLabelText(t('products.form.price')), '1');
    await user.type(within(dialog).getByLabelText(t('products.form.cost')), '2');
    // A new product is created, not "saved changes".
    expect(within(dialog).queryByRole('button', { name: t('common.save') })).not.toBeInTheDocument();
    await user.click(within(dialog).getByRole('button', { name: t('products.form.create') }));
    expect(await within(dialog).findByText(t('products.form.eanInvalid'))).toBeInTheDocument();
    expect(within(dialog).getByText(t('products.form.costAbovePrice'))).toBeInTheDocument();
    expect(within(dialog).getByText(t('products.form.categoryRequired'))).toBeInTheDocument();
    expect(api.inputs('catalog.createProduct')).toHaveLength(0);
  });

  it('reads pasted amounts in either decimal mark, and refuses one that reads two ways under its field', async () => {
    api.use({ ...appFixtures('owner'), 'catalog.products': [], 'catalog.createProduct': (input) => ({ ...croissant, ...input }) });
    const { user } = await renderApp('/products');
    await user.click(screen.getByRole('button', { name: t('products.add') }));
    const dialog = await screen.findByRole('dialog', { name: t('products.form.newTitle') });
    await user.type(within(dialog).getByLabelText(t('products.form.name')), 'Barra');
    await user.click(within(dialog).getByRole('combobox', { name: t('products.form.category') }));
    await user.click(await screen.findByRole('option', { name: t('categories.bakery') }));
    await user.type(within(dialog).getByLabelText(t('products.form.ean')), '8410000000023');
    const paste = async (label: string, text: string) => {
      await user.clear(within(dialog).getByLabelText(label));
      await user.click(within(dialog).getByLabelText(label));
      await user.paste(text);
    };
    await paste(t('products.form.unitWeight'), '0,35');
    await paste(t('products.form.price'), '1.234,5');
    await paste(t('products.form.cost'), '7,50');
    await paste(t('products.form.salvage'), '1,234');
    await paste(t('products.form.density'), '0');
    await user.click(within(dialog).getByRole('button', { name: t('products.form.create') }));
    // English reads `1,234` as thousands or a Spanish decimal: refused, nothing sent.
    expect(await within(dialog).findByText(t('numbers.ambiguous', { text: '1,234', whole: '1234', decimal: '1.234' }))).toBeInTheDocument();
    // A density of 0 would weigh every litre as nothing: refused under its field.
    expect(within(dialog).getByText(t('products.form.densityPositive'))).toBeInTheDocument();
    expect(api.inputs('catalog.createProduct')).toHaveLength(0);
    await paste(t('products.form.salvage'), '1.60');
    await paste(t('products.form.density'), '1,03');
    await user.click(within(dialog).getByRole('button', { name: t('products.form.create') }));
    await waitFor(() =>
      expect(api.last('catalog.createProduct')).toMatchObject({
        unit_weight_kg: 0.35,
        density_kg_per_l: 1.03,
        price: 1234.5,
        unit_cost: 7.5,
        salvage_value: 1.6,
      }),
    );
  });

  it("lists an import's problems by line and offers no import until the file passes", async () => {
    api.use({
      ...appFixtures('admin'),
      'catalog.products': [croissant],
      'catalog.importProducts': () => {
        throw new ApiError('validation_error', 'Nothing imported.', [
          {
            path: 'csv',
            message: 'line 3: ean "123" is not a valid EAN/GTIN',
            code: 'invalid_gtin',
            params: { line: 3, field: 'ean', value: '123' },
          },
          // A detail without a code (an older server's, or one no code covers): its English message.
          { path: 'csv', message: 'line 4: something new' },
        ]);
      },
    });
    const { user } = await renderApp('/products');
    await user.type(screen.getByLabelText(t('products.import.text')), 'name,food_category,ean');
    await user.click(screen.getByRole('button', { name: t('products.import.check') }));
    // Said in the reader's language from the detail's code and values, not the server's English.
    const said = t('errors.details.atLine', { line: 3, text: t('errors.details.invalid_gtin', { value: '123', field: 'ean' }) });
    expect(await screen.findByText(said)).toBeInTheDocument();
    expect(screen.queryByText('line 3: ean "123" is not a valid EAN/GTIN')).not.toBeInTheDocument();
    expect(screen.getByText('line 4: something new')).toBeInTheDocument();
    await waitFor(() => expect(api.last('catalog.importProducts')).toEqual({ csv: 'name,food_category,ean', dry_run: true }));
    expect(screen.queryByRole('button', { name: /^(Importar|Import) / })).not.toBeInTheDocument();
  });
});
