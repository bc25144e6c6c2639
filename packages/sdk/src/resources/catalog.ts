import {
  type Cause,
  type Destination,
  type Establishment,
  ListCausesResponse,
  ListDestinationsResponse,
  ListEstablishmentsResponse,
  ListProductsResponse,
  type Product,
} from '@merma/schema';
import type { HttpCore, RequestOptions } from '../core/http.js';

/** GET /api/v1/causas: the active causes of waste. */
export class Causas {
  constructor(private readonly core: HttpCore) {}
  async list(options?: RequestOptions): Promise<Cause[]> {
    return (await this.core.request({ method: 'GET', path: '/causas' }, ListCausesResponse, options)).data;
  }
}

/** GET /api/v1/destinos: destinations in the order of the Ley 1/2025 hierarchy. */
export class Destinos {
  constructor(private readonly core: HttpCore) {}
  async list(options?: RequestOptions): Promise<Destination[]> {
    return (await this.core.request({ method: 'GET', path: '/destinos' }, ListDestinationsResponse, options)).data;
  }
}

/** GET /api/v1/establishments: those this key can access. */
export class Establishments {
  constructor(private readonly core: HttpCore) {}
  async list(options?: RequestOptions): Promise<Establishment[]> {
    return (await this.core.request({ method: 'GET', path: '/establishments' }, ListEstablishmentsResponse, options)).data;
  }
}

/** GET /api/v1/products: the organisation's product catalogue. */
export class Products {
  constructor(private readonly core: HttpCore) {}
  async list(options?: RequestOptions): Promise<Product[]> {
    return (await this.core.request({ method: 'GET', path: '/products' }, ListProductsResponse, options)).data;
  }
}
