#!/usr/bin/env node
/**
 * Writes src/generated/api-types.ts: the SDK's request and response types, rendered as plain
 * TypeScript from the zod schemas of @merma/schema (the one source of truth for every shape).
 *
 * Why generated and not `z.infer` re-exports: the published package must not make its users
 * install zod to type-check (its .d.ts would import it) and must not ship zod's ~90 kB to check
 * responses it does not police. Plain types cost nothing at run time and read well in an editor.
 *
 * Inputs are rendered as the API accepts them (`io: 'input'`); in query types every parameter the
 * server can do without (optional, or with a default) is optional, and one it cannot (the tax
 * pack's `year`) stays required. In both, an optional field also accepts an
 * explicit `undefined` (`field?: T | undefined`), as the client does at run time (a query value
 * `undefined` is not sent; JSON drops it from a body), so the types hold under a consumer's
 * `exactOptionalPropertyTypes`. Response types stay as the API sends them.
 * `pnpm --filter @merma/sdk generate` rewrites the file; a test fails when it is stale.
 */
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as schema from '@merma/schema';
import ts from 'typescript';
import { createAuxiliaryTypeStore, printNode, zodToTs } from 'zod-to-ts';

/** Response and value types, as the API sends them. */
const OUTPUTS = [
  'FoodCategory',
  'WasteStage',
  'Sector',
  'EventType',
  'WebhookEventName',
  'InboundEventType',
  'Permission',
  'ErrorCode',
  'ErrorDetail',
  'ErrorBody',
  'WasteRecord',
  'BatchItemError',
  'BatchInsertedItem',
  'BatchResult',
  'ChainCheckpoint',
  'ChainVerification',
  'ChainVerificationRun',
  'Cause',
  'Destination',
  'Establishment',
  'Product',
  'ImportProductsResult',
  'Shift',
  'Weekday',
  'Closure',
  'OpeningCalendar',
  'Session',
  'AnalyticsResult',
  'BenchmarkResult',
  'Prediction',
  'DemandPoint',
  'DemandAdvice',
  'ProductDemand',
  'DemandPrediction',
  'ProductionSettings',
  'PlanLanguage',
  'PreventionPlan',
  'Obligations',
  'EsrsE5',
  'HierarchyReport',
  'Reduction',
  'PlanMeasure',
  'TrainingSession',
  'WasteStream',
  'OrganizationFigures',
  'MeasurementMethod',
  'EdiblePart',
  'HierarchyReason',
  'MeasureStatus',
  'ReductionBaseline',
  'FoodChainStage',
  'WebhookSubscription',
  'WebhookSubscriptionWithSecret',
  'RecoverWebhookResult',
  'WebhookDeliveryAttempt',
  'WebhookDelivery',
  'SalesSummary',
  'InboundEventResult',
  'RecordEventData',
  'SessionCompletedEventData',
  'SubscriptionEventData',
  'AlertEventData',
  'PlanGeneratedEventData',
  'IntegrationLinesRefusedEventData',
  'AgreementExpiringEventData',
  'TestEventData',
  'SocialEntity',
  'DonationAgreement',
  'DonationStatus',
  'DonationLine',
  'Donation',
  'DonationEventData',
  'DonationLink',
  'DonationTaxNoteCode',
  'DonationTaxNote',
  'DonationTaxTotals',
  'DonationTaxEntity',
  'DonationTaxEstablishment',
  'DonationTaxDonation',
  'DonationTaxpayer',
  'DonationTaxPack',
  'DonationSignedCertificate',
  'Photo',
  'PhotoWithDownload',
];
/** Bodies, as the API accepts them. */
const INPUTS = [
  'CreateRecordInput',
  'CreateShiftInput',
  'CreateProductInput',
  'UpdateProductInput',
  'UpdateEstablishmentInput',
  'UpdateWasteStreamInput',
  'ImportProductsInput',
  'SetClosedWeekdaysInput',
  'CreateClosureInput',
  'UpdateProductionSettingsInput',
  'CreateSessionInput',
  'CreateWebhookInput',
  'UpdateWebhookInput',
  'RotateWebhookSecretInput',
  'RecoverWebhookInput',
  'CreateSocialEntityInput',
  'UpdateSocialEntityInput',
  'CreateDonationAgreementInput',
  'UpdateDonationAgreementInput',
  'DonationLineInput',
  'CreateDonationInput',
  'DecideDonationInput',
  'RerouteDonationLineInput',
  'CreateDonationLinkInput',
  'CreateCertificateLinkInput',
  'InboundEventInput',
  'WasteCreatedPayload',
  'WasteUpdatedPayload',
  'InventoryLossPayload',
  'SaleLine',
  'SaleRecordedPayload',
];
/** Query strings: every parameter optional but those the server cannot do without. */
const QUERIES = [
  'ListRecordsQuery',
  'ListSessionsQuery',
  'AnalyticsQuery',
  'BenchmarkingQuery',
  'PredictQuery',
  'PreventionPlanQuery',
  'ObligationsQuery',
  'EsrsE5Query',
  'HierarchyQuery',
  'DossierQuery',
  'EsrsE5CsvQuery',
  'ReductionQuery',
  'OrganizationFiguresQuery',
  'PlanMeasuresQuery',
  'TrainingSessionsQuery',
  'GeneratePreventionPlanQuery',
  'ListDonationAgreementsQuery',
  'ListDonationsQuery',
  'DonationTaxPackQuery',
  'DonationCertificateQuery',
];
/** Fields of inputs that are path parameters, not body or query fields. */
const PATH_FIELDS = {
  UpdateWebhookInput: ['id'],
  RotateWebhookSecretInput: ['id'],
  RecoverWebhookInput: ['id'],
  UpdateSocialEntityInput: ['id'],
  UpdateDonationAgreementInput: ['id'],
  DecideDonationInput: ['id'],
  RerouteDonationLineInput: ['id', 'line_id'],
  CreateDonationLinkInput: ['id'],
  CreateCertificateLinkInput: ['entity_id'],
  UpdateWasteStreamInput: ['destination_id'],
};

/** Named types referenced by name where other types use them, instead of being repeated inline. */
const NAMED = [
  'FoodCategory',
  'WasteStage',
  'MeasurementMethod',
  'EdiblePart',
  'HierarchyReason',
  'Sector',
  'EventType',
  'WebhookEventName',
  'ErrorCode',
  'ErrorDetail',
  'BatchItemError',
  'BatchInsertedItem',
  'WebhookSubscription',
  'WebhookDeliveryAttempt',
  'InboundEventType',
  'PlanLanguage',
  'SalesSummary',
  'DemandPoint',
  'DemandAdvice',
  'ProductDemand',
  'DonationStatus',
  'DonationLine',
  'DonationLineInput',
  'DonationTaxNoteCode',
  'DonationTaxNote',
  'DonationTaxTotals',
  'DonationTaxEntity',
  'DonationTaxEstablishment',
  'DonationTaxDonation',
  'DonationTaxpayer',
];

function overridesFor(name) {
  const overrides = new Map();
  for (const named of NAMED) {
    if (named !== name) overrides.set(schema[named], (t) => t.factory.createTypeReferenceNode(named));
  }
  return overrides;
}

/**
 * Query values the API transforms, whose output has no TypeScript shape: a flag it reads as the
 * string `true` or `false` and turns into a boolean is typed `boolean` (the client sends `true` or
 * `false`); a string it normalises (the tax pack's `cif`, spaces and dots taken out) is typed
 * `string`, as it is sent.
 */
function addQueryFlags(zodSchema, overrides) {
  for (const field of Object.values(zodSchema.shape ?? {})) {
    const inner = field.def.type === 'optional' ? field.unwrap() : field;
    const source = inner.def.type === 'pipe' ? inner.def.in : undefined;
    if (source?.def.type === 'enum' && [...source.options].sort().join() === 'false,true') {
      overrides.set(inner, (t) => t.factory.createKeywordTypeNode(t.SyntaxKind.BooleanKeyword));
    } else if (source?.def.type === 'string' && inner.def.out.def.type === 'transform') {
      overrides.set(inner, (t) => t.factory.createKeywordTypeNode(t.SyntaxKind.StringKeyword));
    }
  }
}

/** The parameters of a query the server cannot do without: neither optional nor defaulted. */
function requiredParameters(zodSchema) {
  return Object.entries(zodSchema.shape ?? {})
    .filter(([, field]) => !field.safeParse(undefined).success)
    .map(([name]) => name);
}

/** `T | undefined`, unless `type` already admits undefined. */
function withUndefined(type) {
  const members = ts.isUnionTypeNode(type) ? type.types : [type];
  if (members.some((t) => t.kind === ts.SyntaxKind.UndefinedKeyword)) return type;
  return ts.factory.createUnionTypeNode([...members, ts.factory.createKeywordTypeNode(ts.SyntaxKind.UndefinedKeyword)]);
}

/**
 * Every optional property of `node` (at any depth) as `name?: T | undefined`; with `allOptional`,
 * the properties of the top-level object are made optional first (a query's parameters), but for
 * those named in `required`.
 */
function acceptUndefined(node, { allOptional = false, required = [] } = {}) {
  const optional = ts.factory.createToken(ts.SyntaxKind.QuestionToken);
  const visit = (n, top) => {
    if (ts.isPropertySignature(n) && n.type) {
      const type = ts.visitNode(n.type, (c) => visit(c, false));
      const makeOptional = n.questionToken || (top && allOptional && !required.includes(n.name.text));
      return ts.factory.updatePropertySignature(
        n,
        n.modifiers,
        n.name,
        makeOptional ? optional : n.questionToken,
        makeOptional ? withUndefined(type) : type,
      );
    }
    const isTop = top && !ts.isTypeLiteralNode(n) ? top : false;
    return ts.visitEachChild(n, (c) => visit(c, ts.isTypeLiteralNode(n) ? top : isTop), undefined);
  };
  return visit(node, true);
}

function render(name, io, { partial = false } = {}) {
  const zodSchema = schema[name];
  if (!zodSchema) throw new Error(`@merma/schema has no ${name}`);
  const store = createAuxiliaryTypeStore();
  const overrides = overridesFor(name);
  if (partial) addQueryFlags(zodSchema, overrides);
  let { node } = zodToTs(zodSchema, { auxiliaryTypeStore: store, io, unrepresentable: 'any', overrides });
  if (store.definitions.size > 0) throw new Error(`${name} needs auxiliary types; extend the generator`);
  const omit = PATH_FIELDS[name];
  if (omit) {
    node = ts.factory.createTypeReferenceNode('Omit', [
      node,
      ts.factory.createUnionTypeNode(omit.map((f) => ts.factory.createLiteralTypeNode(ts.factory.createStringLiteral(f)))),
    ]);
  }
  if (io === 'input' || partial) {
    node = acceptUndefined(node, { allOptional: partial, required: partial ? requiredParameters(zodSchema) : [] });
  }
  // Strict objects render an `[x: string]: never` index signature, which would make the declared
  // fields invalid under `skipLibCheck: false`; unknown fields are refused by the server anyway.
  const text = printNode(node)
    .replace(/\n\s*\[x: string\]: never;/g, '')
    .replace(/\(string \| string\)/g, 'string');
  if (/\bany\b/.test(text)) throw new Error(`${name} renders with 'any': ${text}`);
  const doc = schema[name].description ?? schema[name].meta?.()?.description;
  return `${doc ? `/** ${doc} */\n` : ''}export type ${name} = ${text};\n`;
}

/** One member of the event union per event name, from the schema's discriminated union. */
function renderEvents() {
  const members = schema.WebhookEvent.options.map((option) => {
    const event = option.shape.event.value;
    const typeName = `${event
      .split(/[._]/)
      .map((w) => w[0].toUpperCase() + w.slice(1))
      .join('')}Event`;
    const dataName = OUTPUTS.find((n) => n.endsWith('EventData') && schema[n] === option.shape.data);
    if (!dataName) throw new Error(`the data schema of ${event} is not in OUTPUTS`);
    return { event, typeName, dataName };
  });
  const lines = members.map(
    (m) =>
      `/** Body of the \`${m.event}\` event. */\nexport type ${m.typeName} = { event: '${m.event}'; timestamp: string; data: ${m.dataName} };\n`,
  );
  lines.push(
    '/**',
    ' * Body of every webhook delivery this version of the SDK knows, discriminated by `event`. The',
    ' * API may add event names later: `verifyWebhook` returns those too (as `UnknownWebhookEvent`',
    ' * shapes), so keep a `default:` branch when you switch on `event`.',
    ' */',
    `export type WebhookEvent = ${members.map((m) => m.typeName).join(' | ')};`,
    '',
  );
  return lines.join('\n');
}

export function generateTypes() {
  const parts = [
    '// Generated by scripts/generate-types.mjs from @merma/schema. Do not edit: run `pnpm --filter @merma/sdk generate`.',
    '',
    ...OUTPUTS.map((n) => render(n, 'output')),
    ...INPUTS.map((n) => render(n, 'input')),
    ...QUERIES.map((n) => render(n, 'output', { partial: true })),
    renderEvents(),
  ];
  return parts.join('\n');
}

export const GENERATED_PATH = join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'generated', 'api-types.ts');

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(GENERATED_PATH, generateTypes());
  console.log(`wrote ${GENERATED_PATH}`);
}
