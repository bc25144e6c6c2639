import type { APIPromise } from '../core/api-promise.js';
import type { HttpCore, RequestOptions } from '../core/http.js';
import type { Cause, Destination, Establishment, Product } from '../generated/api-types.js';

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

/** GET /api/v1/establishments: those this key can access. */
export class Establishments {
  constructor(private readonly core: HttpCore) {}
  list(options?: RequestOptions): APIPromise<Establishment[]> {
    return this.core.request({ method: 'GET', path: '/establishments' }, options);
  }
}

/** GET /api/v1/products: the organisation's product catalogue. */
export class Products {
  constructor(private readonly core: HttpCore) {}
  list(options?: RequestOptions): APIPromise<Product[]> {
    return this.core.request({ method: 'GET', path: '/products' }, options);
  }
}
