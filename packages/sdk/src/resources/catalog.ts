import type { APIPromise } from '../core/api-promise.js';
import type { HttpCore, RequestOptions } from '../core/http.js';
import type {
  Cause,
  CreateProductInput,
  Destination,
  DossierQuery,
  EsrsE5,
  EsrsE5CsvQuery,
  EsrsE5Query,
  Establishment,
  HierarchyQuery,
  HierarchyReport,
  ImportProductsInput,
  ImportProductsResult,
  Obligations,
  ObligationsQuery,
  OrganizationFigures,
  OrganizationFiguresQuery,
  Product,
  Reduction,
  ReductionQuery,
  UpdateEstablishmentInput,
  UpdateProductInput,
  UpdateWasteStreamInput,
  WasteStream,
} from '../generated/api-types.js';
import { download, segment } from './path.js';

/** GET /api/v1/causas: the active causes of waste. */
export class Causas {
  constructor(private readonly core: HttpCore) {}
  list(options?: RequestOptions): APIPromise<Cause[]> {
    return this.core.request({ method: 'GET', path: '/causas' }, options);
  }
}

/** GET /api/v1/destinos: destinations in the order of the Ley 1/2025 hierarchy. */
export class Destinos {
  constructor(private readonly core: HttpCore) {}
  list(options?: RequestOptions): APIPromise<Destination[]> {
    return this.core.request({ method: 'GET', path: '/destinos' }, options);
  }
}

/** GET /api/v1/establishments: those this key can access; PATCH one's activity and floor area. */
export class Establishments {
  constructor(private readonly core: HttpCore) {}
  list(options?: RequestOptions): APIPromise<Establishment[]> {
    return this.core.request({ method: 'GET', path: '/establishments' }, options);
  }

  /**
   * Sets the key's establishment's `nace_code` (a NACE Rev. 2 class of the food chain, `'56.10'`;
   * CNAE's `'5610'` is accepted) and `floor_area_m2`; a field left out is kept, `null` clears it.
   * They are what `compliance.obligations()` rests on.
   */
  update(id: string, changes: Omit<UpdateEstablishmentInput, 'id'>, options?: RequestOptions): APIPromise<Establishment> {
    return this.core.request({ method: 'PATCH', path: `/establishments/${segment(id)}`, body: changes }, options);
  }
}

/**
 * GET /api/v1/compliance/obligations: what Ley 1/2025 asks of the key's establishment — the
 * prevention plan, donation agreements and the order of priorities, each `yes`, `no` or
 * `unknown` with its reason and the provisions it rests on — and the facts still missing.
 */
export class Compliance {
  constructor(private readonly core: HttpCore) {}
  obligations(query: ObligationsQuery = {}, options?: RequestOptions): APIPromise<Obligations> {
    return this.core.request({ method: 'GET', path: '/compliance/obligations', query }, options);
  }

  /**
   * GET /api/v1/compliance/esrs-e5: a calendar year's food waste (the current one to date by
   * default) in the terms of ESRS E5-5 — diverted from disposal by recovery operation, directed to
   * disposal by treatment, the non-recycled share — with what is not waste (donated, fed to
   * animals…) reported apart.
   */
  esrsE5(query: EsrsE5Query = {}, options?: RequestOptions): APIPromise<EsrsE5> {
    return this.core.request({ method: 'GET', path: '/compliance/esrs-e5', query }, options);
  }

  /**
   * GET /api/v1/compliance/esrs-e5.csv: the same figures as a spreadsheet's CSV, its bytes — in
   * Spanish by default (`;`, decimal comma, a byte order mark), `{ lang: 'en' }` with `,` and a
   * decimal point; one row per line of the disclosure with its ESRS E5 paragraph.
   */
  esrsE5Csv(query: EsrsE5CsvQuery = {}, options?: RequestOptions): Promise<Uint8Array> {
    return download(this.core, { method: 'GET', path: '/compliance/esrs-e5.csv', query }, 'text/csv', options);
  }

  /**
   * GET /api/v1/compliance/reduction: a year's food waste (as Delegated Decision (EU) 2019/1597
   * counts it) against a baseline — `2021-2023` by default, `2020` or `first_year` — with the
   * establishment's stage, the 2030 reduction the Waste Framework Directive sets for it, and kg per
   * €1,000 of sales where sales reach Merma.
   */
  reduction(query: ReductionQuery = {}, options?: RequestOptions): APIPromise<Reduction> {
    return this.core.request({ method: 'GET', path: '/compliance/reduction', query }, options);
  }

  /**
   * GET /api/v1/compliance/hierarchy: a calendar year's records sent lower in the hierarchy than
   * their food category's best step (Ley 1/2025 art. 5.2), how many carry a `hierarchy_reason`,
   * by reason, and the ones still without one, newest first.
   */
  hierarchy(query: HierarchyQuery = {}, options?: RequestOptions): APIPromise<HierarchyReport> {
    return this.core.request({ method: 'GET', path: '/compliance/hierarchy', query }, options);
  }

  /**
   * GET /api/v1/compliance/organization: a year's food waste of every establishment of the
   * organisation (an Enterprise Multi key; another key's own), each against its own baseline, then
   * by stage of the food supply chain with the 2030 reduction for it, in all, and the ESRS E5-5
   * figures summed.
   */
  organization(query: OrganizationFiguresQuery = {}, options?: RequestOptions): APIPromise<OrganizationFigures> {
    return this.core.request({ method: 'GET', path: '/compliance/organization', query }, options);
  }

  /**
   * GET /api/v1/compliance/waste-streams: one entry per destination that is waste, in the
   * hierarchy's order, with the LER code the establishment hands it over under and its authorised
   * manager (name and NIMA); null while not described.
   */
  wasteStreams(options?: RequestOptions): APIPromise<WasteStream[]> {
    return this.core.request({ method: 'GET', path: '/compliance/waste-streams' }, options);
  }

  /**
   * PUT /api/v1/compliance/waste-streams/{destination_id}: describes one destination's stream, whole:
   * `ler_code` (`'20 01 08'`; `'200108'` is accepted), `manager_name` and `manager_nima` (null while
   * not known). Needs `catalog:write`.
   */
  setWasteStream(destinationId: string, stream: UpdateWasteStreamInput, options?: RequestOptions): APIPromise<WasteStream> {
    return this.core.request({ method: 'PUT', path: `/compliance/waste-streams/${segment(destinationId)}`, body: stream }, options);
  }

  /**
   * GET /api/v1/compliance/dossier.zip: the inspection dossier of a calendar year (the current one
   * to date by default) as the ZIP's bytes — the plan's versions, the year's records with the
   * chain's verification and the signed checkpoints, the documents chain, the public keys, the
   * compliance figures, the donation agreements, `SHA256SUMS` and a `verify.mjs` that checks it
   * with Node alone. The same register gives the same bytes.
   */
  dossier(query: DossierQuery = {}, options?: RequestOptions): Promise<Uint8Array> {
    return download(this.core, { method: 'GET', path: '/compliance/dossier.zip', query }, 'application/zip', options);
  }
}

/**
 * The organisation's product catalogue: what sales name and the demand forecast is made for. Prices
 * are euros per unit of sale; with `price` and `unit_cost` the production advice weighs a leftover
 * against a missed sale.
 */
/** What `products.list` may ask for. */
export type ProductsQuery = { include_inactive?: boolean };

export class Products {
  constructor(private readonly core: HttpCore) {}

  /**
   * The active products by name; `list({ include_inactive: true })` lists deactivated ones too.
   * `list(options)` (request options alone) still works, as before the query existed.
   */
  list(options?: RequestOptions): APIPromise<Product[]>;
  list(query: ProductsQuery, options?: RequestOptions): APIPromise<Product[]>;
  list(first?: ProductsQuery | RequestOptions, second?: RequestOptions): APIPromise<Product[]> {
    const isQuery = first !== undefined && 'include_inactive' in first;
    const query = isQuery ? (first as ProductsQuery) : {};
    const options = isQuery ? second : (first as RequestOptions | undefined);
    return this.core.request(
      { method: 'GET', path: '/products', ...(query.include_inactive ? { query: { include_inactive: 'true' } } : {}) },
      options,
    );
  }

  /** Adds a product; its EAN (and POS reference) must be the organisation's only one (ConflictError otherwise). */
  create(input: CreateProductInput, options?: RequestOptions): APIPromise<Product> {
    return this.core.request({ method: 'POST', path: '/products', body: input }, options);
  }

  /** Changes the fields given (`null` clears one); `{ active: false }` deactivates the product. */
  update(id: string, changes: Omit<UpdateProductInput, 'id'>, options?: RequestOptions): APIPromise<Product> {
    return this.core.request({ method: 'PATCH', path: `/products/${segment(id)}`, body: changes }, options);
  }

  /**
   * Imports a CSV's text (`name,food_category,ean` and optionally `pos_ref`, `unit_weight_kg`,
   * `price`, `unit_cost`, `salvage_value`): all or nothing, a BadRequestError listing each bad
   * line; `dry_run: true` previews without writing.
   */
  import(input: ImportProductsInput, options?: RequestOptions): APIPromise<ImportProductsResult> {
    return this.core.request({ method: 'POST', path: '/products/import', body: input }, options);
  }
}
