import {
  API_VERSION_HEADER,
  API_VERSION_PREFIX,
  API_VERSIONS,
  CURRENT_API_VERSION,
  DonationSignedCertificate,
  ErrorBody,
  ESRS_YEARS,
  IntegrationReceiptResponse,
  InventoryLossPayload,
  MAX_PHOTO_BYTES,
  OdooIntegrationResponse,
  OdooWebhookBody,
  PHOTO_CONTENT_TYPES,
  Photo,
  RateLimitErrorBody,
  SaleLine,
  SaleRecordedPayload,
  SalesRecordedBatch,
  SquareNotification,
  WasteCreatedPayload,
  WasteUpdatedPayload,
  WebhookEvent,
} from '@merma/schema';
import { generateOpenApiDocument, type OpenAPIObject } from 'trpc-to-openapi';
import type { AppRouter } from '../trpc/router.js';
import { listOpenApiProcedures } from './binding.js';

type Json = Record<string, unknown>;

/** `record.created` → `RecordCreatedEvent`: the component name of an outbound event's body. */
const eventSchemaName = (event: string) =>
  `${event
    .split(/[._]/)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('')}Event`;

/** Every outbound event, its name and body schema, from the one union deliveries are typed by. */
const OUTBOUND_EVENTS = WebhookEvent.options.map((option) => ({
  event: option.shape.event.value as string,
  schema: option,
}));

const SIGNATURE_PARAMETERS = [
  ['webhook-id', "the delivery's id (Standard Webhooks): the same on every retry, so a receiver handles each once"],
  ['webhook-timestamp', 'Unix seconds of this attempt (Standard Webhooks): refuse one too far from your clock, against replays'],
  [
    'webhook-signature',
    'space-separated `v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}">`, one per secret while a rotated one is in its grace period (Standard Webhooks); `verifyWebhook` in `@merma/sdk` checks it',
  ],
  ['X-Service-Signature', "`sha256=<hex HMAC-SHA256 of the body>` with the subscription's current secret"],
].map(([name, description]) => ({ name, in: 'header', required: true, description, schema: { type: 'string' } }));

/**
 * The `webhooks` of OpenAPI 3.1: each event a subscription receives, as the POST the service sends to
 * the subscription's URL, its body typed by event and its signing headers. A 2xx within the timeout
 * is a delivery; anything else is retried with backoff.
 */
function describeOutboundEvents(doc: OpenAPIObject): void {
  Object.assign(doc, {
    webhooks: Object.fromEntries(
      OUTBOUND_EVENTS.map(({ event }) => [
        event,
        {
          post: {
            operationId: `on${eventSchemaName(event).replace(/Event$/, '')}`,
            summary: `The ${event} event`,
            tags: ['webhooks'],
            security: [],
            parameters: SIGNATURE_PARAMETERS,
            requestBody: {
              required: true,
              content: { 'application/json': { schema: { $ref: `#/components/schemas/${eventSchemaName(event)}` } } },
            },
            responses: { '200': { description: 'Any 2xx status within the timeout: delivered. Any other answer, or none, is retried.' } },
          },
        },
      ]),
    ),
  });
}

const errorResponse = (description: string, schema = 'Error', headers?: Json) => ({
  description,
  ...(headers ? { headers } : {}),
  content: { 'application/json': { schema: { $ref: `#/components/schemas/${schema}` } } },
});

const RATE_HEADERS = {
  'X-RateLimit-Limit': { description: 'Requests allowed in the current window', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Requests left in the current window', schema: { type: 'integer' } },
  'X-RateLimit-Reset': { description: 'Unix time (seconds) when the window resets', schema: { type: 'integer' } },
};

/**
 * The refusals every API route can answer, whatever it does: the key, its permission or the plan,
 * the rate limit, the service. `forbidden` says what a 403 means for the operation.
 */
const commonErrors = (forbidden = 'The key lacks the permission, or the plan does not include the API') => ({
  '401': errorResponse('API key missing, invalid or revoked'),
  '403': errorResponse(forbidden),
  '429': errorResponse('Rate limit exceeded', 'RateLimitError', {
    'Retry-After': { description: 'Seconds to wait', schema: { type: 'integer' } },
    ...RATE_HEADERS,
  }),
  '500': errorResponse('Internal error'),
  '503': errorResponse('Temporarily unavailable; retry after Retry-After seconds'),
});

/** Operations without a path parameter that still answer 404, and when. */
const NOT_FOUND_WITHOUT_PATH_PARAMETER: Record<string, string> = {
  getPreventionPlan: 'No prevention plan has been generated yet',
  receiveInboundEvent: '`waste.updated` names a record that is not in this establishment',
};

/** Operations that also answer 409 for a reason of their own, and when. */
const CONFLICT_BESIDES_IDEMPOTENCY: Record<string, string> = {
  retryWebhookDelivery: 'the subscription is deactivated (reactivate it first)',
  testWebhook: 'the subscription is deactivated (reactivate it first)',
  recoverWebhookDeliveries: 'the subscription is deactivated (reactivate it first)',
  createProduct: 'another product of the organisation has that EAN or POS reference',
};

/** Operations other than POST that answer 409, and when. */
const CONFLICT_OTHER_METHODS: Record<string, string> = {
  updateProduct: 'another product of the organisation has that EAN or POS reference',
};

/**
 * `POST /webhooks/inbound`'s `payload` is checked by the server against the standard payload its
 * `event` names (or by its connector): the schema says `object`, so the document lists the
 * standard payloads, by event, and a connector's own (Square's, Odoo's) as any object. A batch's
 * `sales` are checked line by line (a bad line is reported, the others stored), so the schema
 * takes any item; the document names `SaleLine`.
 */
const PAYLOAD_BY_EVENT: [event: string, schema: string][] = [
  ['waste.created', 'WasteCreatedPayload'],
  ['waste.updated', 'WasteUpdatedPayload'],
  ['inventory.loss', 'InventoryLossPayload'],
  ['sales.recorded (a day of sales)', 'SalesRecordedBatch'],
  ['sales.recorded (one sale)', 'SaleRecordedPayload'],
];

function describeInboundPayload(doc: OpenAPIObject): void {
  const schemas = (doc.components?.schemas ?? {}) as Record<string, Json>;
  const op = (doc.paths?.['/webhooks/inbound'] as Record<string, Json> | undefined)?.post;
  const body = (
    (op?.requestBody as Json | undefined)?.content as Record<string, { schema: { properties: Record<string, Json> } }> | undefined
  )?.['application/json']?.schema;
  const batch = schemas.SalesRecordedBatch as { properties: Record<string, Json> } | undefined;
  const missing = PAYLOAD_BY_EVENT.map(([, schema]) => schema).filter((name) => !schemas[name]);
  if (!body?.properties.payload || !batch || missing.length > 0 || !schemas.SaleLine) {
    throw new Error(`The inbound payload's schemas are not where the document expects them (${missing.join(', ')})`);
  }
  body.properties.payload = {
    description: `The event's payload. In the standard format, by \`event\`: ${PAYLOAD_BY_EVENT.map(([event, schema]) => `${event}: \`${schema}\``).join('; ')}. With \`connector\`, the system's own payload (Square's \`Order\`s or \`InventoryAdjustment\`, Odoo's records), which the connector maps to these.`,
    anyOf: [
      ...PAYLOAD_BY_EVENT.map(([, schema]) => ({ $ref: `#/components/schemas/${schema}` })),
      { type: 'object', additionalProperties: {}, description: "a connector's payload (`connector`: square, odoo)" },
    ],
  };
  batch.properties.sales = { ...batch.properties.sales, items: { $ref: '#/components/schemas/SaleLine' } };
}

/**
 * The body's fields of a `queryInput` POST, as the optional query parameters the binding also reads
 * them from (trpc-to-openapi documents a POST's input as its body only).
 */
function bodyFieldsAsQueryParameters(op: Json): Json[] {
  const body = (op.requestBody as Json | undefined)?.content as Record<string, { schema?: Json }> | undefined;
  const properties = (body?.['application/json']?.schema?.properties ?? {}) as Record<string, Json>;
  return Object.entries(properties).map(([name, schema]) => {
    const { description, ...rest } = schema;
    return {
      name,
      in: 'query',
      required: false,
      ...(description ? { description: `${description}. Also accepted in the JSON body.` } : {}),
      schema: rest,
    };
  });
}

/**
 * The OpenAPI 3.1 document, generated by trpc-to-openapi from the procedures, then completed with
 * what its generator does not model: the real success status (201 for creates), the service's
 * error bodies for every status it can answer, the rate-limit headers and the Idempotency-Key
 * header of POST operations.
 */
export function buildOpenApiDocument(router: AppRouter, version: string): OpenAPIObject {
  const doc = generateOpenApiDocument(router, {
    title: 'Merma API',
    description:
      'Food-waste ("merma") records: create and read records, catalogues and shifts. Every request needs `Authorization: Bearer <API_KEY>` (`svc_live_…` for production data, `svc_test_…` for test data). Successful responses are wrapped in `{ success, data, meta?, timestamp }`. ' +
      `An optional \`${API_VERSION_HEADER}: <date>\` header pins the contract version (${API_VERSIONS.map((v) => `\`${v}\``).join(', ')}; the current is \`${CURRENT_API_VERSION}\`); every answer names the version it was answered with in \`${API_VERSION_HEADER}\`, and an unknown version is refused with 400.`,
    version,
    openApiVersion: '3.1.0',
    baseUrl: API_VERSION_PREFIX,
    securitySchemes: {
      bearerAuth: { type: 'http', scheme: 'bearer', description: 'API key: svc_live_… or svc_test_…' },
    },
    defs: {
      Error: ErrorBody,
      RateLimitError: RateLimitErrorBody,
      DonationSignedCertificate,
      Photo,
      SquareNotification,
      OdooWebhookBody,
      IntegrationReceiptEnvelope: IntegrationReceiptResponse,
      OdooIntegrationEnvelope: OdooIntegrationResponse,
      WasteCreatedPayload,
      WasteUpdatedPayload,
      InventoryLossPayload,
      SalesRecordedBatch,
      SaleRecordedPayload,
      SaleLine,
      ...Object.fromEntries(OUTBOUND_EVENTS.map(({ event, schema }) => [eventSchemaName(event), schema])),
    },
  });

  const byPath = new Map(listOpenApiProcedures(router).map((p) => [`${p.meta.openapi.method} ${p.meta.openapi.path}`, p.meta]));
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(item as Record<string, Json>)) {
      const meta = byPath.get(`${method.toUpperCase()} ${path}`);
      if (!meta) continue;
      if (meta.permission) {
        op['x-permission'] = meta.permission; // the key permission the operation needs
        op.description = `${op.description ? `${op.description}\n\n` : ''}Requires the \`${meta.permission}\` permission.`;
      }
      const responses = op.responses as Record<string, Json>;
      const success = responses['200'] as Json;
      for (const code of Object.keys(responses)) delete responses[code];
      success.headers = RATE_HEADERS;
      responses[String(meta.successStatus ?? 200)] = success;
      responses['400'] = errorResponse('Invalid input; `details` lists each problem');
      Object.assign(responses, commonErrors());
      if (path.includes('{')) responses['404'] = errorResponse('No such resource for this establishment');
      const notFound = NOT_FOUND_WITHOUT_PATH_PARAMETER[op.operationId as string];
      if (notFound) responses['404'] = errorResponse(notFound);
      if (method === 'post') {
        const conflict = CONFLICT_BESIDES_IDEMPOTENCY[op.operationId as string];
        responses['409'] = errorResponse(`Idempotency-Key reused with a different request${conflict ? `, or ${conflict}` : ''}`);
      }
      const otherConflict = CONFLICT_OTHER_METHODS[op.operationId as string];
      if (otherConflict) responses['409'] = errorResponse(otherConflict.charAt(0).toUpperCase() + otherConflict.slice(1));
      if (method !== 'get') {
        // Fastify parses a body on POST, PATCH and DELETE alike.
        responses['413'] = errorResponse('Body larger than 1 MiB');
        responses['415'] = errorResponse('Body is not application/json');
      }
      if (method === 'post') {
        const params = (op.parameters as Json[] | undefined) ?? [];
        if (meta.queryInput) {
          params.push(...bodyFieldsAsQueryParameters(op));
          // Every field may come from the query string instead: the body may be left out.
          if (op.requestBody) (op.requestBody as Json).required = false;
        }
        params.push({
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description: 'Makes a retried POST safe: same key and body within 24 h replays the first response.',
          schema: { type: 'string', maxLength: 255 },
        });
        op.parameters = params;
      }
    }
  }
  doc.security = [{ bearerAuth: [] }];
  Object.assign(
    doc.paths ?? {},
    INTEGRATION_PATHS,
    AGREEMENT_DOCUMENT_PATHS,
    PHOTO_PATHS,
    taxPackDocumentPaths(doc),
    DOSSIER_PATHS,
    ESRS_CSV_PATHS,
  );
  describeInboundPayload(doc);
  describeOutboundEvents(doc);
  // The generator also emits schemas nothing refers to (its own error shapes, which the service
  // never sends): drop every component schema no operation reaches.
  const schemas = (doc.components?.schemas ?? {}) as Record<string, unknown>;
  const used = new Set<string>();
  const pending = [JSON.stringify(doc.paths), JSON.stringify(doc.webhooks)];
  for (let text = pending.pop(); text !== undefined; text = pending.pop()) {
    for (const [, name] of text.matchAll(/"#\/components\/schemas\/([^"]+)"/g)) {
      if (name && !used.has(name) && schemas[name]) {
        used.add(name);
        pending.push(JSON.stringify(schemas[name]));
      }
    }
  }
  for (const name of Object.keys(schemas)) if (!used.has(name)) delete schemas[name];
  return doc;
}

const integrationResponses = (success: string, unauthorized: string, notFound: boolean) => ({
  '200': { description: 'Received', content: { 'application/json': { schema: { $ref: `#/components/schemas/${success}` } } } },
  '400': errorResponse("Not a body this vendor sends, or one Merma cannot store; `details` names the vendor's field"),
  '401': errorResponse(unauthorized),
  '403': errorResponse("The organisation's plan does not include integrations, or it is canceled"),
  ...(notFound ? { '404': errorResponse('No such integration: revoked, or not the URL the dashboard gave') } : {}),
  '409': errorResponse('The same record is being received at this moment; retry'),
  '413': errorResponse('Body larger than 1 MiB'),
  '415': errorResponse('Body is not application/json'),
  '429': errorResponse('Rate limit exceeded', 'RateLimitError', {
    'Retry-After': { description: 'Seconds to wait', schema: { type: 'integer' } },
  }),
  '500': errorResponse('Internal error'),
  '503': errorResponse('Temporarily unavailable; the vendor retries'),
});

/**
 * A donation agreement's signed document (http/surfaces/agreement-documents.ts): the API's one
 * pair of routes whose body is not JSON but the raw PDF, served by Fastify routes of their own
 * beside the procedures, with the API key and limits of every API route.
 */
const agreementId = { name: 'id', in: 'path', required: true, description: 'the agreement id', schema: { type: 'string', format: 'uuid' } };
/** The refusals of a route outside the procedures, as the procedures' (above). */
const documentErrors = (permission: string) => commonErrors(`The key lacks ${permission}, or the plan does not include the API`);
const AGREEMENT_DOCUMENT_PATHS: Json = {
  '/donation-agreements/{id}/document': {
    put: {
      operationId: 'putDonationAgreementDocument',
      tags: ['donations'],
      security: [{ bearerAuth: [] }],
      summary: "Upload a donation agreement's signed document",
      description:
        "The signed agreement as the raw body (`Content-Type: application/pdf`, starting with `%PDF-`, up to 10 MiB). It is stored with its SHA-256, which the agreement shows as `document.sha256`; a new upload replaces it. Live keys only: entities and agreements are the organisation's legal facts, not test data.\n\nRequires the `donations:write` permission.",
      parameters: [agreementId],
      requestBody: { required: true, content: { 'application/pdf': { schema: { type: 'string', format: 'binary' } } } },
      'x-permission': 'donations:write',
      responses: {
        '200': {
          description: 'The agreement, with its document',
          headers: RATE_HEADERS,
          content: {
            'application/json': {
              schema: { type: 'object', required: ['data'], properties: { data: { $ref: '#/components/schemas/DonationAgreement' } } },
            },
          },
        },
        ...documentErrors('donations:write'),
        '400': errorResponse('The body is not a PDF, or the id is not a UUID'),
        '404': errorResponse("No such agreement in the key's organisation"),
        '403': errorResponse('The key lacks donations:write, is a test key, or the plan does not include the API'),
        '413': errorResponse('Body larger than 10 MiB'),
        '415': errorResponse('Body is not application/pdf'),
      },
    },
    get: {
      operationId: 'getDonationAgreementDocument',
      tags: ['donations'],
      security: [{ bearerAuth: [] }],
      summary: "Download a donation agreement's signed document",
      description: 'The PDF as uploaded; `ETag` and `Repr-Digest` carry its SHA-256.\n\nRequires the `donations:read` permission.',
      parameters: [agreementId],
      'x-permission': 'donations:read',
      responses: {
        '200': {
          description: 'The signed document',
          headers: {
            ...RATE_HEADERS,
            ETag: { description: 'the SHA-256 (hex) of the document, quoted', schema: { type: 'string' } },
            'Repr-Digest': { description: 'sha-256 of the document (RFC 9530)', schema: { type: 'string' } },
          },
          content: { 'application/pdf': { schema: { type: 'string', format: 'binary' } } },
        },
        ...documentErrors('donations:read'),
        '400': errorResponse('The id is not a UUID, or a query parameter was given'),
        '404': errorResponse("No such agreement in the key's organisation, or it has no document yet"),
      },
    },
  },
};

/**
 * A photo's upload (http/surfaces/photo-uploads.ts): a raw image body, so a Fastify route beside the
 * procedures, with the key and limits of every API route. Its answer is the `Photo` component, which
 * `GET /photos/{id}` (a procedure) also documents.
 */
const PHOTO_PATHS: Json = {
  '/photos': {
    post: {
      operationId: 'createPhoto',
      tags: ['photos'],
      security: [{ bearerAuth: [] }],
      summary: 'Upload a photo of the waste',
      description: `The image as the raw body (\`Content-Type: image/jpeg\`, \`image/png\` or \`image/webp\`, up to ${MAX_PHOTO_BYTES / 1024 / 1024} MiB; the bytes must be that type's). Answers the photo; put its \`url\` in a record's \`photo_url\` (\`POST /records\`), which then refuses any other Merma photo address than its organisation's and mode's. The same bytes sent again answer the same photo, so a retried upload needs no Idempotency-Key. Kept as long as the records (the register is never purged). Counts against the \`records_create\` rate limit.\n\nRequires the \`records:write\` permission.`,
      requestBody: {
        required: true,
        content: Object.fromEntries(PHOTO_CONTENT_TYPES.map((type) => [type, { schema: { type: 'string', format: 'binary' } }])),
      },
      'x-permission': 'records:write',
      responses: {
        '201': {
          description: 'The stored photo',
          headers: RATE_HEADERS,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['success', 'data', 'timestamp'],
                properties: {
                  success: { const: true },
                  data: { $ref: '#/components/schemas/Photo' },
                  timestamp: { type: 'string', format: 'date-time' },
                },
              },
            },
          },
        },
        ...documentErrors('records:write'),
        '400': errorResponse('The body is empty, or is not the image its Content-Type says'),
        '413': errorResponse(`Body larger than ${MAX_PHOTO_BYTES / 1024 / 1024} MiB`),
        '415': errorResponse('Body is not image/jpeg, image/png or image/webp'),
        '500': errorResponse('Internal error'),
        '503': errorResponse('The photo storage is unavailable; retry'),
      },
    },
  },
};

/** The inspection dossier (http/surfaces/dossier-documents.ts, modules/compliance/dossier.ts). */
const DOSSIER_PATHS: Json = {
  '/compliance/dossier.zip': {
    get: {
      operationId: 'getComplianceDossier',
      tags: ['compliance'],
      security: [{ bearerAuth: [] }],
      summary: 'Download the inspection dossier',
      description:
        "One ZIP with what an inspector of Ley 1/2025 asks to see for the key's establishment and a calendar year (`year`, the current one to date by default), its texts in `lang` (`es` by default, or `en`): every version of the prevention plan, the year's records as CSV with the verification of the whole chain and the signed checkpoints (each message and raw Ed25519 signature as files), the register's documents chain with the documents still stored, the public keys (JWKS and PEM), \"am I obliged?\", the ESRS E5-5 figures and the hierarchy report with its justifications, the donation agreements covering the establishment with their signed PDFs (when the key also has `donations:read`), `SHA256SUMS`, and `verify.mjs`, which checks all of it with Node alone; `README.txt` says how to check it with `sha256sum` and `openssl` too. The same register gives the same bytes (`ETag`, `Repr-Digest`): nothing in it depends on the time of the download. Counts against the `analytics` rate limit.\n\nRequires the `records:read` and `analytics:read` permissions.",
      parameters: [
        {
          name: 'year',
          in: 'query',
          required: false,
          description: "calendar year in the establishment's time zone; the current one by default (to date); a year after it is a 400",
          schema: { type: 'integer', minimum: ESRS_YEARS.min, maximum: ESRS_YEARS.max },
        },
        {
          name: 'lang',
          in: 'query',
          required: false,
          description: 'the language of the texts',
          schema: { type: 'string', enum: ['es', 'en'], default: 'es' },
        },
      ],
      'x-permission': 'records:read',
      responses: {
        '200': {
          description: 'The dossier',
          headers: {
            ...RATE_HEADERS,
            'Content-Disposition': { description: 'attachment, with the file name', schema: { type: 'string' } },
            ETag: { description: 'the SHA-256 (hex) of the ZIP, quoted', schema: { type: 'string' } },
            'Repr-Digest': { description: 'sha-256 of the ZIP (RFC 9530)', schema: { type: 'string' } },
          },
          content: { 'application/zip': { schema: { type: 'string', format: 'binary' } } },
        },
        '400': errorResponse(
          'Invalid query (`year` not a number, out of range or after the current year, an unknown `lang` or parameter); `details` lists each problem',
        ),
        ...documentErrors('records:read or analytics:read'),
      },
    },
  },
};

/** The ESRS E5-5 figures as a CSV (http/surfaces/dossier-documents.ts, modules/compliance/esrs-csv.ts). */
const ESRS_CSV_PATHS: Json = {
  '/compliance/esrs-e5.csv': {
    get: {
      operationId: 'getEsrsE5Csv',
      tags: ['compliance'],
      security: [{ bearerAuth: [] }],
      summary: 'Download the ESRS E5-5 figures as a spreadsheet',
      description:
        'The figures of `GET /compliance/esrs-e5` for a calendar year (`year`, the current one to date by default) as a CSV, one row per line of the disclosure with the paragraph of ESRS E5 that asks for it, kg and, for the shares, the %: in Spanish (`lang=es`, the default) for a spreadsheet set to Spanish — UTF-8 with a byte order mark, `;` between fields, decimal comma, CRLF —, in English (`lang=en`) with `,` and a decimal point. Cells are never read as formulas.\n\nRequires the `analytics:read` permission.',
      parameters: [
        {
          name: 'year',
          in: 'query',
          required: false,
          description: "calendar year in the establishment's time zone; the current one by default (to date)",
          schema: { type: 'integer', minimum: ESRS_YEARS.min, maximum: ESRS_YEARS.max },
        },
        {
          name: 'lang',
          in: 'query',
          required: false,
          description: 'the language of the file',
          schema: { type: 'string', enum: ['es', 'en'], default: 'es' },
        },
      ],
      'x-permission': 'analytics:read',
      responses: {
        '200': {
          description: 'The figures as CSV',
          headers: {
            ...RATE_HEADERS,
            'Content-Disposition': { description: 'attachment, with the file name', schema: { type: 'string' } },
          },
          content: { 'text/csv': { schema: { type: 'string', format: 'binary' } } },
        },
        '400': errorResponse(
          'Invalid query (`year` not a number or out of range, an unknown `lang` or parameter); `details` lists each problem',
        ),
        ...documentErrors('analytics:read'),
      },
    },
  },
};

/**
 * The donations' tax pack as files (http/surfaces/tax-pack-documents.ts): the JSON procedure's
 * figures as a CSV and a PDF, and an entity's certificate. Their query parameters are the
 * procedure's (`getDonationTaxPack`), read from the generated document so they cannot drift.
 */
function taxPackDocumentPaths(doc: OpenAPIObject): Json {
  const pack = (doc.paths?.['/donations/tax-pack'] as Record<string, Json> | undefined)?.get;
  const query = pack?.parameters as Json[] | undefined;
  if (!query?.some((p) => p.name === 'year')) throw new Error("The tax pack's query parameters are not where the document expects them");
  const file = (type: string, description: string) => ({
    description,
    headers: {
      ...RATE_HEADERS,
      'Content-Disposition': { description: 'attachment, with the file name', schema: { type: 'string' } },
    },
    content: { [type]: { schema: { type: 'string', format: 'binary' } } },
  });
  const operation = (operationId: string, summary: string, description: string, parameters: Json[], success: Json, notFound?: string) => ({
    operationId,
    tags: ['donations'],
    security: [{ bearerAuth: [] }],
    summary,
    description: `${description}\n\nRequires the \`donations:read\` permission.`,
    parameters,
    'x-permission': 'donations:read',
    responses: {
      '200': success,
      '400': errorResponse('Invalid query (`year` missing or out of range, an unknown parameter…); `details` lists each problem'),
      ...documentErrors('donations:read'),
      ...(notFound ? { '404': errorResponse(notFound) } : {}),
    },
  });
  return {
    '/donations/tax-pack.csv': {
      get: operation(
        'getDonationTaxPackCsv',
        'Download the donations tax pack as a spreadsheet',
        'The figures of `GET /donations/tax-pack` as a CSV a spreadsheet set to Spanish opens as columns: UTF-8 with a byte order mark, `;` between fields, decimal comma, dates dd/mm/yyyy, CRLF line ends, cells never read as formulas. One row per company (`Empresa`, organisation scope only), social entity (`Entidad`), establishment (`Establecimiento`) and donation (`Donación`), in the column `Nivel`.',
        query,
        file('text/csv', 'The pack as CSV'),
      ),
    },
    '/donations/tax-pack.pdf': {
      get: operation(
        'getDonationTaxPackPdf',
        'Download the donations tax pack as a PDF',
        'The figures of `GET /donations/tax-pack` as a PDF in Spanish for the adviser: per company its totals and the 15 % limit, each entity with its rate and recurrence test, each establishment, each donation with its VAT, and the notes in full.',
        query,
        file('application/pdf', 'The pack as PDF'),
      ),
    },
    '/donations/tax-pack/certificates/{entity_id}.pdf': {
      get: operation(
        'getDonationTaxCertificate',
        "Download a social entity's donation certificate to sign",
        "The certificate of Ley 49/2002 art. 24 for the gifts of the year to one social entity, pre-filled for its representative to sign: the donor company's and the entity's identities, the entity's Ley 49/2002 status, each delivery's date, goods, kilos and art. 18 value, the use of the goods, that the gift is irrevocable, and a blank place, date and signature. One per donor company (CIF), each on its own pages. An entity that issues its own certificate signs that one instead.",
        [
          { name: 'entity_id', in: 'path', required: true, description: 'the social entity', schema: { type: 'string', format: 'uuid' } },
          ...query.filter((p) => p.name !== 'taxable_base'),
        ],
        file('application/pdf', 'The certificate'),
        "No such entity in the key's organisation, or no donation to it handed over in the year by the key's establishments",
      ),
    },
    '/donations/tax-pack/certificates/{entity_id}/signed': signedCertificatePaths(query),
  };
}

/**
 * The certificate the entity signed (http/surfaces/signed-certificates.ts): the raw PDF up and
 * down, for one company's gifts of the year; its query is the pre-filled certificate's.
 */
function signedCertificatePaths(packQuery: Json[]): Json {
  const parameters = [
    { name: 'entity_id', in: 'path', required: true, description: 'the social entity', schema: { type: 'string', format: 'uuid' } },
    ...packQuery
      .filter((p) => p.name !== 'taxable_base')
      .map((p) =>
        p.name === 'cif'
          ? {
              ...p,
              description:
                "the donor company (its establishments' CIF) whose gifts the certificate covers; needed only when the key sees several companies that gave to the entity in the year",
            }
          : p,
      ),
  ];
  const notFound = errorResponse(
    "No such entity in the key's organisation, no donation to it handed over in the year by the company (or the key's establishments), or no signed certificate stored yet",
  );
  const badQuery = 'Invalid query (`year` missing or out of range, an unknown parameter…), the entity id is not a UUID, or `cif` is needed';
  return {
    put: {
      operationId: 'putDonationSignedCertificate',
      tags: ['donations'],
      security: [{ bearerAuth: [] }],
      summary: "Upload the certificate a social entity signed for the year's gifts",
      description:
        "The certificate of Ley 49/2002 art. 24 the entity signed — the pre-filled one (`GET /donations/tax-pack/certificates/{entity_id}.pdf`) or its own — as the raw body (`Content-Type: application/pdf`, starting with `%PDF-`, up to 10 MiB), for one donor company's gifts of the year. It is stored with its SHA-256, which the tax pack then shows as the entity's `signed_certificate`; a new upload replaces it, and the audit log keeps the hash it replaced. One per company, entity, year and mode: a test key's is a rehearsal the live pack never shows. The company must have handed something over to the entity in the year (in the key's mode).\n\nRequires the `donations:write` permission.",
      parameters,
      requestBody: { required: true, content: { 'application/pdf': { schema: { type: 'string', format: 'binary' } } } },
      'x-permission': 'donations:write',
      responses: {
        '200': {
          description: 'The certificate as stored',
          headers: RATE_HEADERS,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['data'],
                properties: { data: { $ref: '#/components/schemas/DonationSignedCertificate' } },
              },
            },
          },
        },
        ...documentErrors('donations:write'),
        '400': errorResponse(`The body is not a PDF, or: ${badQuery}`),
        '404': notFound,
        '413': errorResponse('Body larger than 10 MiB'),
        '415': errorResponse('Body is not application/pdf'),
      },
    },
    get: {
      operationId: 'getDonationSignedCertificate',
      tags: ['donations'],
      security: [{ bearerAuth: [] }],
      summary: "Download the certificate a social entity signed for the year's gifts",
      description:
        'The signed certificate as uploaded; `ETag` and `Repr-Digest` carry its SHA-256.\n\nRequires the `donations:read` permission.',
      parameters,
      'x-permission': 'donations:read',
      responses: {
        '200': {
          description: 'The signed certificate',
          headers: {
            ...RATE_HEADERS,
            'Content-Disposition': { description: 'attachment, with the file name', schema: { type: 'string' } },
            ETag: { description: 'the SHA-256 (hex) of the certificate, quoted', schema: { type: 'string' } },
            'Repr-Digest': { description: 'sha-256 of the certificate (RFC 9530)', schema: { type: 'string' } },
          },
          content: { 'application/pdf': { schema: { type: 'string', format: 'binary' } } },
        },
        ...documentErrors('donations:read'),
        '400': errorResponse(badQuery),
        '404': notFound,
      },
    },
  };
}

/**
 * The integrations' own URLs (http/surfaces/vendors.ts): Fastify routes outside the
 * procedures, authenticated the vendors' way instead of by an API key (`security: []`).
 */
const INTEGRATION_PATHS: Json = {
  '/integrations/square/{id}': {
    post: {
      operationId: 'receiveSquareNotification',
      tags: ['integrations'],
      summary: "A Square integration's notification URL",
      description:
        "Paste this URL (dashboard → Integrations → Square) into a webhook subscription of your Square application, for `order.created`, `order.updated`, `order.fulfillment.updated` and `inventory.count.updated`. Square signs each notification with the subscription's signature key; the signature is checked over the raw body before anything else, and the notification is stored once by its `event_id` and answered at once. A job then reads the order (Orders API, BatchRetrieveOrders) or the WASTE adjustments (Inventory API, BatchRetrieveInventoryChanges) with the integration's access token: COMPLETED orders' lines become sales (as `sales.recorded` with `connector: square`), adjustments become losses (as `inventory.loss`), each stored once by line uid or adjustment id; Square being down or rate-limiting is retried. Open orders, other locations and other event types are answered `ignored`.",
      security: [],
      parameters: [
        { name: 'id', in: 'path', required: true, description: 'the integration id', schema: { type: 'string', format: 'uuid' } },
        {
          name: 'x-square-hmacsha256-signature',
          in: 'header',
          required: true,
          description: "base64 of HMAC-SHA256, keyed with the subscription's signature key, over this URL followed by the raw body",
          schema: { type: 'string' },
        },
      ],
      requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/SquareNotification' } } } },
      responses: integrationResponses(
        'IntegrationReceiptEnvelope',
        'The signature is missing or does not match, or no signature key is set',
        true,
      ),
    },
  },
  '/integrations/odoo/{token}': {
    post: {
      operationId: 'receiveOdooWebhook',
      tags: ['integrations'],
      summary: "An Odoo integration's URL, for automation rules",
      description:
        "Paste this URL (dashboard → Integrations → Odoo; shown once, the token in it is the credential) into an automation rule's \"Send Webhook Notification\" action. `stock.scrap` (state done) is stored as a loss (`inventory.loss`, `connector: odoo`), `pos.order.line` as a sale (`sales.recorded`), both answered at once since Odoo waits 1 s. A `pos.order` whose `lines` are ids is stored and its lines read through Odoo's JSON-RPC by a job when the integration has Odoo's URL, database, login and API key; otherwise it is refused, saying which rule to configure instead. A refusal is also shown on the integration in the dashboard.",
      security: [],
      parameters: [
        {
          name: 'token',
          in: 'path',
          required: true,
          description: '`mit_` and 32 characters',
          schema: { type: 'string', pattern: '^mit_[0-9A-Za-z]{32}$' },
        },
      ],
      requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/OdooWebhookBody' } } } },
      responses: integrationResponses(
        'OdooIntegrationEnvelope',
        "The URL's token is not an active integration's (revoked, or rotated and past its grace period)",
        false,
      ),
    },
  },
};
