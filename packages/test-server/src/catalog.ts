/** Catalogue ids the server seeds in its first migration (destinations and causes), for fixtures. */
export const DESTINO_DONATION = '6ccf7d29-f6d9-403d-a9b0-2f907f15477b';
export const DESTINO_LANDFILL = '261568e0-0830-4971-bb56-4a6153297696';
export const DESTINO_COMPOSTING = '51a096c6-196d-41dd-a02a-968cbfa9803f';
export const CAUSA_CADUCIDAD = '38c24669-6e85-43c2-a75a-a6059295af65';
