#!/usr/bin/env node
/**
 * Extracts from Square's published OpenAPI specification (github.com/square/connect-api-specification,
 * file api.json — an OpenAPI 3.0 document since Square moved off Swagger 2.0) the operations the Square
 * integration calls and the webhook events it receives, with every schema they reference and the
 * specification's own examples, into test/fixtures/square/square-api-extract.json.
 *
 * The extract is itself a valid OpenAPI 3.0 document: the local Square API of the tests
 * (test/fixtures/square-api.ts) puts Stoplight Prism in front of its fake with this document, so every
 * request our client sends and every response the fake returns is checked against Square's own shapes.
 *
 * Run by hand when moving to a newer Square-Version, from apps/server:
 *
 *   node scripts/square-spec-extract.mjs <clone of square/connect-api-specification> [ref]
 *
 * <clone> may be a work tree or a bare git directory; ref defaults to HEAD. The file api.json is read
 * at that commit with `git show`, and the commit is written into the extract's `x-extract` header.
 * The result is laid out by the repository's formatter (biome), so `pnpm lint` passes on it.
 * Nothing is edited: operations, schemas and examples are copied as Square publishes them; the only
 * additions are `x-extract` and `components.examples`, which names each example found on an extracted
 * schema (`<SchemaName>`, value = the schema's `example`) so that tests can start from them.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPOSITORY = 'https://github.com/square/connect-api-specification';
const FILE = 'api.json';

/** The operations we call (path → methods). RetrieveOrder and RetrieveInventoryAdjustment are not
 * called by the client today, but they are cheap and carry the spec's Order and InventoryAdjustment
 * examples. */
const OPERATIONS = {
  '/v2/orders/batch-retrieve': ['post'],
  '/v2/orders/{order_id}': ['get'],
  '/v2/inventory/changes/batch-retrieve': ['post'],
  '/v2/inventory/adjustments/{adjustment_id}': ['get'],
};
/** The webhook notifications an integration's URL receives. */
const EVENTS = ['OrderCreatedEvent', 'OrderUpdatedEvent', 'OrderFulfillmentUpdatedEvent', 'InventoryCountUpdatedEvent'];

const [source, ref = 'HEAD'] = process.argv.slice(2);
if (!source) {
  console.error('usage: node scripts/square-spec-extract.mjs <clone of square/connect-api-specification> [ref]');
  process.exit(2);
}
const git = (...args) => execFileSync('git', ['-C', source, ...args], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
const commit = git('rev-parse', `${ref}^{commit}`).trim();
const committedAt = git('show', '-s', '--format=%cI', commit).trim();
const spec = JSON.parse(git('show', `${commit}:${FILE}`));
if (!String(spec.openapi ?? '').startsWith('3.')) throw new Error(`${FILE} at ${commit} is not OpenAPI 3 (openapi: ${spec.openapi})`);

const schemas = spec.components.schemas;
const wanted = new Set();
/** Every `#/components/schemas/X` reachable from a value, transitively. */
function collect(value) {
  if (Array.isArray(value)) return value.forEach(collect);
  if (!value || typeof value !== 'object') return;
  for (const [key, v] of Object.entries(value)) {
    if (key === '$ref' && typeof v === 'string') {
      const m = /^#\/components\/schemas\/(.+)$/.exec(v);
      if (!m) throw new Error(`unsupported $ref ${v}`);
      const name = m[1];
      if (!schemas[name]) throw new Error(`$ref to a missing schema ${name}`);
      if (!wanted.has(name)) {
        wanted.add(name);
        collect(schemas[name]);
      }
    } else collect(v);
  }
}

const paths = {};
for (const [path, methods] of Object.entries(OPERATIONS)) {
  const item = spec.paths[path];
  if (!item) throw new Error(`${path} is not in ${FILE}`);
  paths[path] = {};
  for (const method of methods) {
    if (!item[method]) throw new Error(`${method.toUpperCase()} ${path} is not in ${FILE}`);
    paths[path][method] = item[method];
    collect(item[method]);
  }
}
for (const name of EVENTS) collect({ $ref: `#/components/schemas/${name}` });

const names = [...wanted].sort();
const extractedSchemas = Object.fromEntries(names.map((n) => [n, schemas[n]]));
const examples = Object.fromEntries(
  names
    .filter((n) => schemas[n].example !== undefined)
    .map((n) => [n, { summary: `The example of ${n} in ${FILE}`, value: schemas[n].example }]),
);
const squareVersion = spec.components.securitySchemes?.oauth2?.['x-additional-headers']?.find((h) => h.name === 'Square-Version')?.schema
  ?.default;

const extract = {
  openapi: spec.openapi,
  info: spec.info,
  'x-extract': {
    repository: REPOSITORY,
    file: FILE,
    commit,
    committed_at: committedAt,
    square_version: squareVersion,
    extracted_by: 'apps/server/scripts/square-spec-extract.mjs',
    operations: Object.entries(OPERATIONS).flatMap(([p, ms]) => ms.map((m) => `${m.toUpperCase()} ${p}`)),
    events: EVENTS,
    note: 'Operations, schemas and examples are copied unchanged from the file at the commit above; components.examples names the examples of the extracted schemas.',
  },
  servers: spec.servers,
  paths,
  components: {
    securitySchemes: spec.components.securitySchemes,
    schemas: extractedSchemas,
    examples,
  },
};

const out = join(dirname(fileURLToPath(import.meta.url)), '../test/fixtures/square/square-api-extract.json');
writeFileSync(out, `${JSON.stringify(extract, null, 2)}\n`);
// The repository's formatter has the last word on layout, so that `pnpm lint` passes on the result.
execFileSync('pnpm', ['exec', 'biome', 'format', '--write', out], { stdio: 'inherit' });
console.log(
  `${out}: ${Object.keys(paths).length} paths, ${names.length} schemas, ${Object.keys(examples).length} examples (commit ${commit}, Square-Version ${squareVersion})`,
);
console.log(`examples: ${Object.keys(examples).join(', ')}`);
