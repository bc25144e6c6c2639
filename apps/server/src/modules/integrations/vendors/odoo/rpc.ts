import { type Agents, postGuarded, type SendPolicy } from '../../../webhooks/send.js';

/**
 * Reads from an Odoo database through its external JSON-RPC API (`POST <url>/jsonrpc`, Odoo 14 to
 * 19; https://www.odoo.com/documentation/17.0/developer/reference/external_api.html): `common.
 * authenticate(db, login, api_key, {})` gives the user id, then `object.execute_kw(db, uid,
 * api_key, model, method, args, kwargs)`. The answer is `{jsonrpc, id, result}` or `{jsonrpc, id,
 * error: {code, message, data: {name, message}}}` (odoo/http.py, JsonRPCDispatcher).
 *
 * The URL is the customer's, so every call goes through the webhook deliveries' guard (HTTPS in
 * production, no internal address, no redirect; webhooks/send.ts).
 */
export type OdooConnection = { url: string; database: string; login: string; apiKey: string };

export class OdooRpcError extends Error {
  /** A network failure, a timeout or a 5xx may pass; wrong credentials or rights do not until the customer fixes them. */
  readonly retryable: boolean;
  constructor(message: string, retryable: boolean) {
    super(message);
    this.name = 'OdooRpcError';
    this.retryable = retryable;
  }
}

/** The fields of `pos.order.line` the odoo connector reads (see inbound connectors), as search_read returns them. */
export const POS_ORDER_LINE_FIELDS = ['id', 'order_id', 'product_id', 'qty', 'product_uom_id', 'create_date'] as const;

const MAX_ANSWER_BYTES = 5 * 1024 * 1024;

export function odooRpc(connection: OdooConnection, deps: { policy: SendPolicy; agents?: Agents; userAgent: string }) {
  let id = 0;
  async function call(service: 'common' | 'object', method: string, args: unknown[]): Promise<unknown> {
    const url = `${connection.url.replace(/\/+$/, '')}/jsonrpc`;
    const body = JSON.stringify({ jsonrpc: '2.0', method: 'call', params: { service, method, args }, id: ++id });
    const answer = await postGuarded(
      url,
      body,
      { 'content-type': 'application/json', accept: 'application/json', 'user-agent': deps.userAgent },
      deps.policy,
      { ...(deps.agents ? { agents: deps.agents } : {}), maxBytes: MAX_ANSWER_BYTES },
    );
    if (answer.error !== null || answer.body === null) {
      const permanent = answer.error?.startsWith('refused') || (answer.status !== null && answer.status >= 400 && answer.status < 500);
      throw new OdooRpcError(`Odoo at ${connection.url} did not answer: ${answer.error ?? 'no body'}`, !permanent);
    }
    let parsed: { result?: unknown; error?: { message?: string; data?: { name?: string; message?: string } } };
    try {
      parsed = JSON.parse(answer.body);
    } catch {
      throw new OdooRpcError(`Odoo at ${connection.url} did not answer JSON-RPC (is the URL the database's address?)`, false);
    }
    if (parsed.error) {
      const name = parsed.error.data?.name ?? '';
      const detail = parsed.error.data?.message ?? parsed.error.message ?? 'error';
      // Access errors and missing records need the customer; a server error may be transient.
      const permanent = /AccessDenied|AccessError|UserError|ValidationError|MissingError|KeyError/.test(name);
      throw new OdooRpcError(`Odoo refused ${method}: ${name ? `${name}: ` : ''}${detail}`, !permanent);
    }
    return parsed.result;
  }

  let uid: number | undefined;
  async function login(): Promise<number> {
    if (uid !== undefined) return uid;
    const result = await call('common', 'authenticate', [connection.database, connection.login, connection.apiKey, {}]);
    if (typeof result !== 'number') {
      throw new OdooRpcError(
        `Odoo did not accept the login "${connection.login}" with this API key on database "${connection.database}"`,
        false,
      );
    }
    uid = result;
    return uid;
  }

  return {
    /** The names of scrap reason tags (`stock.scrap.reason.tag`, Odoo 17+), in the API user's language, by id. */
    async scrapReasonNames(ids: number[]): Promise<Map<number, string>> {
      const user = await login();
      const result = await call('object', 'execute_kw', [
        connection.database,
        user,
        connection.apiKey,
        'stock.scrap.reason.tag',
        'read',
        [ids],
        { fields: ['name'] },
      ]);
      if (!Array.isArray(result)) throw new OdooRpcError('Odoo answered read on stock.scrap.reason.tag without a list', false);
      return new Map(
        (result as { id?: unknown; name?: unknown }[]).flatMap((r) =>
          typeof r.id === 'number' && typeof r.name === 'string' ? [[r.id, r.name] as const] : [],
        ),
      );
    },

    /** The lines of one Point of Sale order, with units named in English (`lang: en_US`) as the connector reads them. */
    async posOrderLines(orderId: number): Promise<Record<string, unknown>[]> {
      const user = await login();
      const result = await call('object', 'execute_kw', [
        connection.database,
        user,
        connection.apiKey,
        'pos.order.line',
        'search_read',
        [[['order_id', '=', orderId]]],
        { fields: [...POS_ORDER_LINE_FIELDS], context: { lang: 'en_US' } },
      ]);
      if (!Array.isArray(result)) throw new OdooRpcError('Odoo answered search_read on pos.order.line without a list', false);
      return result as Record<string, unknown>[];
    },
  };
}
