import { randomUUID } from 'node:crypto';
import { ROLES, type Role } from '@merma/schema/dashboard';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../src/admin/service.js';
import { createUserToken } from '../src/modules/accounts/service.js';
import { inviteMember } from '../src/modules/team/service.js';
import { createDashboardRouter } from '../src/trpc/dashboard.js';
import { changedDigests, type TenantRows, tableDigests } from './contract.js';
import { createMember, DashboardBrowser, PASSWORD } from './dashboard-client.js';
import { api, createTenant, startTestApp, type Tenant, type TestContext, validRecord } from './helpers.js';

/**
 * Every procedure of the dashboard's router against a table of who may call it: each role of an
 * organisation is allowed (200) or refused (403, writing nothing), a request without a session is
 * refused (401, writing nothing) unless the procedure is public, and a session of another
 * organisation reaches nothing of this one — neither by naming its establishment nor by naming its
 * objects from its own establishment (404 or, for a body reference, 400; nothing written; nothing
 * of this organisation in the answers it does get). The same objects named in the other mode are
 * refused too. A procedure without a row in the table fails the first test.
 */
const NOW = new Date('2026-11-24T10:00:00.000Z');
let t: TestContext;

type Member = { id: string; email: string };
type Org = Tenant & { owner: Member };
/** Where a call points: the establishment and mode it names, and whose objects its ids are. */
type Call = { est: string; livemode: boolean; of: Org };

type Entry = {
  /** The roles allowed, or `public`: callable without a session. */
  roles: readonly Role[] | 'public';
  /** A valid input, with fresh objects of `c.of` where the procedure names one. */
  input?: (c: Call) => Promise<unknown>;
  /**
   * The input names objects of `c.of` besides the establishment (ids in the body): the status of
   * naming them from another organisation, establishment or mode (404, or 400 for a reference in
   * a record's body, as the API answers).
   */
  foreign?: 404 | 400;
  /** The call ends the caller's session: it gets a session of its own. */
  endsSession?: boolean;
  /**
   * The objects the input names besides the establishment have no mode (an organisation's donation
   * agreement): naming them in the other mode is no refusal.
   */
  modeless?: boolean;
};

const EVERYONE = ROLES;
const BUILDERS: readonly Role[] = ['owner', 'admin', 'developer'];
const ADMINS: readonly Role[] = ['owner', 'admin'];

let a: Org;
let b: Org;
let members: Record<Role, Member>;
/** Ids of the objects made for organisation A, which B's answers must never show. */
const made = new Set<string>();
let counter = 0;
/** Each organisation's donation agreement in force (`make.agreementInForce`). */
const inForce = new Map<string, string>();
/** Each organisation's certificate to sign (`make.certificate`). */
const certificates = new Map<string, { entity_id: string; year: number; cif: string }>();
/** A donation's lines, of the categories and kinds `agreementBody` accepts. */
const DONATION_LINES = [
  { description: 'Pan de barra', food_category: 'bakery', quantity: 2, unit: 'kg' },
  { description: 'Bollería', food_category: 'bakery', quantity: 1, unit: 'kg' },
];
const DESTINO_COMPOST = '51a096c6-196d-41dd-a02a-968cbfa9803f';

/** The composting destination: waste (R3), so it has a stream. */
const COMPOSTING = '51a096c6-196d-41dd-a02a-968cbfa9803f';
const mode = (c: Call) => ({ establishment_id: c.est, livemode: c.livemode });
const STRONG_PASSWORD = () => `Vq7!${randomUUID()}`;

async function rest(org: Org, path: string, body: unknown): Promise<{ id: string }> {
  const res = await api(t.app, org.key).post(`/api/v1${path}`, body);
  if (res.statusCode >= 300) throw new Error(`POST ${path} answered ${res.statusCode}: ${res.body}`);
  const data = res.json().data as { id: string };
  if (org === a) made.add(data.id);
  return data;
}
const kept = (org: Org, id: string) => {
  if (org === a) made.add(id);
  return id;
};

/** One active integration of a kind per establishment and mode: the ones there are revoked, to make another. */
async function roomForIntegration(c: Pick<Call, 'est' | 'livemode'>) {
  await t.db.integration.updateMany({
    where: { establishment_id: c.est, livemode: c.livemode, status: 'active' },
    data: { status: 'revoked', revoked_at: NOW, token_hash: null },
  });
}

/** Fresh objects of an organisation's establishment, in test mode (`rest` and `kept` note A's). */
/** A valid EAN-13 of its own for each n: 20 + n, zero-padded, and its check digit. */
function gtin(n: number): string {
  const body = `20${String(n).padStart(10, '0')}`;
  const sum = [...body].reverse().reduce((acc, d, i) => acc + Number(d) * (i % 2 === 0 ? 3 : 1), 0);
  return `${body}${(10 - (sum % 10)) % 10}`;
}

/** A valid NIF of a legal person of its own for each n: G, 7 digits from n, the control digit. */
function nif(n: number): string {
  const digits = String(3_000_000 + n).padStart(7, '0');
  let sum = 0;
  for (let i = 0; i < 7; i++) {
    const d = Number(digits[i]);
    sum += i % 2 === 1 ? d : Math.floor((d * 2) / 10) + ((d * 2) % 10);
  }
  return `G${digits}${(10 - (sum % 10)) % 10}`;
}

const entityBody = () => ({
  name: `Banco ${++counter}`,
  nif: nif(counter),
  address: 'Calle Mayor 1, Madrid',
  legal_form: 'banco_de_alimentos',
  ley_49_2002: { art2_entity: true, regime_opted_in: true },
  capacity: { cold_chain: true, vehicle: false },
});
const agreementBody = (entityId: string, establishmentId: string) => ({
  entity_id: entityId,
  establishment_ids: [establishmentId],
  valid_from: '2026-01-01',
  valid_until: '2027-06-30',
  renewal: 'none',
  accepted_food_categories: ['bakery'],
  conditions: { chilled: true, frozen: false, cooked: false, near_best_before: true },
  collection: { schedule: 'Martes a las 18:00', weekdays: ['tuesday'], transport: 'entity' },
  storage_conditions: 'Refrigerado',
  safety_responsibility_clause: 'El donante hasta la entrega.',
  refusal_procedure: 'Por escrito, con motivo.',
});

const make = {
  record: async (o: Org) => (await rest(o, '/records', validRecord())).id,
  /** A record with a photo stored by Merma (a 1×1 PNG of its own, so each is a new photo). */
  recordWithPhoto: async (o: Org) => {
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==', 'base64');
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/photos',
      headers: { authorization: `Bearer ${o.key}`, 'content-type': 'image/png' },
      payload: Buffer.concat([png, Buffer.from(String(++counter))]),
    });
    if (res.statusCode !== 201) throw new Error(`POST /photos answered ${res.statusCode}: ${res.body}`);
    return (await rest(o, '/records', validRecord({ photo_url: res.json().data.url }))).id;
  },
  // 22:00–06:00 does not cover NOW (11:00 in Madrid), so no record takes it and it can be deleted.
  shift: async (o: Org) => (await rest(o, '/shifts', { name: `Noche ${++counter}`, start_time: '22:00', end_time: '06:00' })).id,
  session: async (o: Org) => (await rest(o, '/sessions', { name: `Cierre ${++counter}` })).id,
  // The catalogue is changed with a live key.
  product: async (o: Org) => {
    const { key } = await createKey(t.db, { establishment: o.establishmentId, mode: 'live' });
    const res = await api(t.app, key).post('/api/v1/products', { name: `Pan ${++counter}`, food_category: 'bakery', ean: gtin(counter) });
    if (res.statusCode !== 201) throw new Error(`POST /products answered ${res.statusCode}: ${res.body}`);
    return kept(o, res.json().data.id);
  },
  // Social entities and donation agreements are changed with a live key, as the catalogue is.
  entity: async (o: Org) => {
    const { key } = await createKey(t.db, { establishment: o.establishmentId, mode: 'live' });
    const res = await api(t.app, key).post('/api/v1/social-entities', entityBody());
    if (res.statusCode !== 201) throw new Error(`POST /social-entities answered ${res.statusCode}: ${res.body}`);
    return kept(o, res.json().data.id);
  },
  agreement: async (o: Org) => {
    const { key } = await createKey(t.db, { establishment: o.establishmentId, mode: 'live' });
    const res = await api(t.app, key).post('/api/v1/donation-agreements', agreementBody(await make.entity(o), o.establishmentId));
    if (res.statusCode !== 201) throw new Error(`POST /donation-agreements answered ${res.statusCode}: ${res.body}`);
    return kept(o, res.json().data.id);
  },
  /** An agreement in force (its signed PDF stored) covering the organisation's establishment: one per organisation. */
  agreementInForce: async (o: Org) => {
    const known = inForce.get(o.organizationId);
    if (known) return known;
    const id = await make.agreement(o);
    const { key } = await createKey(t.db, { establishment: o.establishmentId, mode: 'live' });
    const res = await t.app.inject({
      method: 'PUT',
      url: `/api/v1/donation-agreements/${id}/document`,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/pdf' },
      payload: Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(64, 7), Buffer.from('\n%%EOF\n')]),
    });
    if (res.statusCode !== 200) throw new Error(`PUT the agreement's document answered ${res.statusCode}: ${res.body}`);
    inForce.set(o.organizationId, id);
    return id;
  },
  /**
   * A donation of two lines offered in test mode, taken as far as `step`: answered (the first line
   * accepted, the second refused), or collected.
   */
  donation: async (o: Org, step: 'offered' | 'answered' | 'collected' = 'offered') => {
    const { id, lines } = (await rest(o, '/donations', { agreement_id: await make.agreementInForce(o), lines: DONATION_LINES })) as {
      id: string;
      lines: { id: string }[];
    };
    const lineIds = lines.map((l) => l.id) as [string, string];
    if (step !== 'offered') {
      await rest(o, `/donations/${id}/decision`, {
        lines: [
          { line_id: lineIds[0], decision: 'accepted' },
          { line_id: lineIds[1], decision: 'refused', reason: 'Sin sitio' },
        ],
      });
    }
    if (step === 'collected') await rest(o, `/donations/${id}/collect`, {});
    return { id, lineIds };
  },
  /**
   * A certificate there is (the organisation's test gift to its agreement's entity, collected in
   * 2026): its entity, year and company, made once per organisation.
   */
  certificate: async (o: Org) => {
    const known = certificates.get(o.organizationId);
    if (known) return known;
    const { id } = await make.donation(o, 'collected');
    const [row] = await t.db.$queryRaw<{ entity_id: string; cif: string }[]>`
      SELECT a.entity_id::text, e.cif FROM donations d JOIN donation_agreements a ON a.id = d.agreement_id
      JOIN establishments e ON e.id = d.establishment_id WHERE d.id = ${id}::uuid`;
    const certificate = { entity_id: row?.entity_id as string, year: 2026, cif: row?.cif as string };
    certificates.set(o.organizationId, certificate);
    return certificate;
  },
  closure: async (o: Org) => (await rest(o, '/opening-calendar/closures', { starts_on: '2026-12-24', ends_on: '2026-12-26' })).id,
  // A station device waiting to be paired, of the establishment's test mode.
  station: async (o: Org) => {
    const id = randomUUID();
    await t.db.$executeRaw`INSERT INTO station_devices (id, establishment_id, livemode, name, pairing_code_hash, pairing_expires_at)
      VALUES (${id}::uuid, ${o.establishmentId}::uuid, false, ${`Tablet ${++counter}`}, ${randomUUID().replace(/-/g, '').padEnd(64, '0')}, ${new Date(NOW.getTime() + 600_000)})`;
    return kept(o, id);
  },
  webhook: async (o: Org) => (await rest(o, '/webhooks', { url: 'https://93.184.216.34/hook', events: ['record.created'] })).id,
  delivery: async (o: Org) => {
    const id = await make.webhook(o);
    return { id, delivery_id: (await rest(o, `/webhooks/${id}/test`, {})).id };
  },
  plan: async (o: Org) => (await rest(o, '/prevention-plan', {})).id,
  // Sessions are recorded in the dashboard only: one of the test mode, written as that procedure stores it.
  trainingSession: async (o: Org) => {
    const id = randomUUID();
    await t.db.$executeRawUnsafe(
      `INSERT INTO training_sessions (id, establishment_id, livemode, held_on, topic, attendees, created_at)
       VALUES ($1::uuid, $2::uuid, false, '2026-11-01', 'Mermas', 4, now())`,
      id,
      o.establishmentId,
    );
    return id;
  },
  key: async (o: Org) => kept(o, (await createKey(t.db, { establishment: o.establishmentId, mode: 'test' })).id),
  integration: async (o: Org) => {
    await roomForIntegration({ est: o.establishmentId, livemode: false });
    const owner = await browserOf(o.owner, {});
    const created = await owner.mutate('integrations.create', {
      establishment_id: o.establishmentId,
      livemode: false,
      kind: 'odoo',
      name: `Odoo ${++counter}`,
    });
    return kept(o, created.id);
  },
  /** A sale line its integration kept (an item no product maps to), waiting to be mapped. */
  refusedLine: async (o: Org) => {
    const integration = await make.integration(o);
    const id = randomUUID();
    const item = `ITEM-${++counter}`;
    const line = { product_ref: item, quantity: 3, sold_at: '2026-11-23' };
    await t.db
      .$executeRaw`INSERT INTO integration_refused_lines (id, integration_id, establishment_id, livemode, source, line_ref, item_ref, item_name, reason, mappable, line)
      VALUES (${id}::uuid, ${integration}::uuid, ${o.establishmentId}::uuid, false, 'odoo', ${`line-${counter}`}, ${item}, 'Pan nuevo',
              'no product of this organisation', true, ${JSON.stringify(line)}::jsonb)`;
    return { integration_id: integration, line_id: kept(o, id) };
  },
  member: async (o: Org) => kept(o, (await createMember(t.db, o.organizationId, 'viewer')).id),
  invitation: async (o: Org) => {
    const { invitation, token } = await inviteMember(t.db, {
      organizationId: o.organizationId,
      actor: { userId: o.owner.id, role: 'owner' },
      by: { userId: o.owner.id, email: o.owner.email, ip: null },
      email: `invited-${randomUUID().slice(0, 8)}@example.com`,
      role: 'viewer',
      language: 'es',
      now: NOW,
    });
    return { id: kept(o, invitation.id), token };
  },
  userToken: async (purpose: 'sign_in' | 'password_reset') => {
    const user = await createMember(t.db, a.organizationId, 'viewer');
    return createUserToken(t.db, { userId: user.id, purpose, organizationId: a.organizationId, ttlMs: 3_600_000, now: NOW });
  },
};

/** Who may call what. Public procedures take their valid input without a session. */
const TABLE: Record<string, Entry> = {
  'accounts.me': { roles: 'public' },
  'accounts.signIn': {
    roles: 'public',
    input: async () => ({ email: (await createMember(t.db, a.organizationId, 'viewer')).email, password: PASSWORD }),
  },
  'accounts.signOut': { roles: 'public' },
  'accounts.signInWithLink': { roles: 'public', input: async () => ({ token: await make.userToken('sign_in') }) },
  'accounts.invitation': { roles: 'public', input: async () => ({ token: (await make.invitation(a)).token }) },
  'accounts.acceptInvitation': {
    roles: 'public',
    input: async () => ({ token: (await make.invitation(a)).token, name: 'Nueva', password: STRONG_PASSWORD() }),
  },
  'accounts.requestPasswordReset': {
    roles: 'public',
    input: async () => ({ email: (await createMember(t.db, a.organizationId, 'viewer')).email }),
  },
  'accounts.resetPassword': {
    roles: 'public',
    input: async () => ({ token: await make.userToken('password_reset'), password: STRONG_PASSWORD() }),
  },
  'accounts.signOutEverywhere': { roles: EVERYONE, endsSession: true },
  'accounts.switchOrganization': { roles: EVERYONE, input: async (c) => ({ organization_id: c.of.organizationId }), foreign: 404 },
  'accounts.setLanguage': { roles: EVERYONE, input: async () => ({ language: 'en' }) },

  'keys.list': { roles: BUILDERS, input: async (c) => ({ establishment_id: c.est }) },
  'keys.create': {
    roles: BUILDERS,
    input: async (c) => ({ establishment_id: c.est, name: `key ${++counter}`, mode: 'test', permissions: ['*'] }),
  },
  'keys.revoke': { roles: BUILDERS, input: async (c) => ({ establishment_id: c.est, id: await make.key(c.of) }), foreign: 404 },

  'webhooks.list': { roles: EVERYONE, input: async (c) => mode(c) },
  'webhooks.get': { roles: EVERYONE, input: async (c) => ({ ...mode(c), id: await make.webhook(c.of) }), foreign: 404 },
  'webhooks.create': {
    roles: BUILDERS,
    input: async (c) => ({ ...mode(c), url: 'https://93.184.216.34/hook', events: ['record.created'] }),
  },
  'webhooks.update': {
    roles: BUILDERS,
    input: async (c) => ({ ...mode(c), id: await make.webhook(c.of), description: 'changed' }),
    foreign: 404,
  },
  'webhooks.delete': { roles: BUILDERS, input: async (c) => ({ ...mode(c), id: await make.webhook(c.of) }), foreign: 404 },
  'webhooks.reactivate': { roles: BUILDERS, input: async (c) => ({ ...mode(c), id: await make.webhook(c.of) }), foreign: 404 },
  'webhooks.rotateSecret': {
    roles: BUILDERS,
    input: async (c) => ({ ...mode(c), id: await make.webhook(c.of), grace_period_seconds: 0 }),
    foreign: 404,
  },
  'webhooks.sendTest': { roles: BUILDERS, input: async (c) => ({ ...mode(c), id: await make.webhook(c.of) }), foreign: 404 },
  'webhooks.deliveries': { roles: EVERYONE, input: async (c) => ({ ...mode(c), id: await make.webhook(c.of) }), foreign: 404 },
  'webhooks.resend': { roles: BUILDERS, input: async (c) => ({ ...mode(c), ...(await make.delivery(c.of)) }), foreign: 404 },
  'inbound.endpoint': { roles: EVERYONE, input: async (c) => ({ establishment_id: c.est }) },

  'integrations.list': { roles: EVERYONE, input: async (c) => mode(c) },
  'integrations.create': {
    roles: BUILDERS,
    input: async (c) => {
      await roomForIntegration(c);
      return { ...mode(c), kind: 'odoo', name: `Odoo ${++counter}` };
    },
  },
  'integrations.update': {
    roles: BUILDERS,
    input: async (c) => ({ ...mode(c), id: await make.integration(c.of), name: 'renamed' }),
    foreign: 404,
  },
  'integrations.rotate': { roles: BUILDERS, input: async (c) => ({ ...mode(c), id: await make.integration(c.of) }), foreign: 404 },
  'integrations.revoke': { roles: BUILDERS, input: async (c) => ({ ...mode(c), id: await make.integration(c.of) }), foreign: 404 },
  'integrations.refusedLines': {
    roles: EVERYONE,
    input: async (c) => ({ ...mode(c), integration_id: await make.integration(c.of) }),
    foreign: 404,
  },
  'integrations.mapRefusedLine': {
    roles: BUILDERS,
    input: async (c) => ({ ...mode(c), ...(await make.refusedLine(c.of)), product_id: await make.product(c.of) }),
    foreign: 404,
  },

  'team.get': { roles: EVERYONE },
  'team.invite': { roles: ADMINS, input: async () => ({ email: `new-${randomUUID().slice(0, 8)}@example.com`, role: 'viewer' }) },
  'team.revokeInvitation': { roles: ADMINS, input: async (c) => ({ id: (await make.invitation(c.of)).id }), foreign: 404 },
  'team.changeRole': { roles: ADMINS, input: async (c) => ({ user_id: await make.member(c.of), role: 'developer' }), foreign: 404 },
  'team.memberApiKeys': { roles: ADMINS, input: async (c) => ({ user_id: await make.member(c.of) }), foreign: 404 },
  'team.remove': { roles: ADMINS, input: async (c) => ({ user_id: await make.member(c.of) }), foreign: 404 },

  'audit.list': { roles: ADMINS, input: async () => ({}) },
  'catalog.get': { roles: EVERYONE },
  'catalog.products': { roles: EVERYONE },
  'catalog.createProduct': {
    roles: BUILDERS,
    input: async () => ({ name: `Barra ${++counter}`, food_category: 'bakery', ean: gtin(counter) }),
  },
  'catalog.updateProduct': { roles: BUILDERS, input: async (c) => ({ id: await make.product(c.of), price: 2 }), foreign: 404 },
  'catalog.importProducts': {
    roles: BUILDERS,
    input: async () => ({ csv: `name,food_category,ean\nHogaza ${++counter},bakery,${gtin(counter)}\n` }),
  },

  'analytics.get': { roles: EVERYONE, input: async (c) => mode(c) },
  'analytics.periods': { roles: EVERYONE, input: async (c) => mode(c) },
  'analytics.benchmark': { roles: EVERYONE, input: async (c) => mode(c) },
  'analytics.alerts': { roles: EVERYONE, input: async (c) => mode(c) },
  'predict.waste': { roles: EVERYONE, input: async (c) => mode(c) },
  'predict.demand': { roles: EVERYONE, input: async (c) => mode(c) },
  'predict.settings': { roles: EVERYONE, input: async (c) => mode(c) },
  'predict.updateSettings': { roles: BUILDERS, input: async (c) => ({ ...mode(c), settings: { service_level: 0.9 } }) },

  'compliance.obligations': { roles: EVERYONE, input: async (c) => ({ establishment_id: c.est, lang: 'es' }) },
  'compliance.esrsE5': { roles: EVERYONE, input: async (c) => ({ ...mode(c), year: 2026 }) },
  'compliance.hierarchy': { roles: EVERYONE, input: async (c) => ({ ...mode(c), year: 2026 }) },
  'compliance.reduction': { roles: EVERYONE, input: async (c) => ({ ...mode(c), year: 2026, baseline: 'first_year' }) },
  'compliance.updateEstablishment': {
    roles: ADMINS,
    input: async (c) => ({ establishment_id: c.est, nace_code: '56.10', floor_area_m2: 100 }),
  },
  'compliance.organization': { roles: EVERYONE, input: async (c) => ({ livemode: c.livemode, year: 2026, baseline: '2021-2023' }) },
  'compliance.wasteStreams': { roles: EVERYONE, input: async (c) => ({ establishment_id: c.est }) },
  'compliance.setWasteStream': {
    roles: ADMINS,
    input: async (c) => ({
      establishment_id: c.est,
      destination_id: COMPOSTING,
      ler_code: '20 01 08',
      manager_name: null,
      manager_nima: null,
    }),
  },
  'compliance.removeWasteStream': {
    roles: ADMINS,
    input: async (c) => {
      // A stream there is to remove (each allowed role's call removes it).
      await t.db.$executeRaw`INSERT INTO waste_streams (establishment_id, destination_id, ler_code, updated_at)
        VALUES (${c.est}::uuid, ${COMPOSTING}::uuid, '20 01 08', now()) ON CONFLICT DO NOTHING`;
      return { establishment_id: c.est, destination_id: COMPOSTING };
    },
  },
  'compliance.updateOrganization': {
    roles: ADMINS,
    input: async () => ({ headcount: 5, annual_turnover_eur: 100_000, balance_sheet_eur: null }),
  },

  'plan.history': { roles: EVERYONE, input: async (c) => mode(c) },
  'plan.get': { roles: EVERYONE, input: async (c) => ({ ...mode(c), id: await make.plan(c.of), lang: 'es' }), foreign: 404 },
  'plan.generate': { roles: BUILDERS, input: async (c) => ({ ...mode(c), lang: 'es' }) },
  'plan.measures': { roles: EVERYONE, input: async (c) => ({ ...mode(c), lang: 'es' }) },
  'plan.updateMeasure': {
    roles: BUILDERS,
    input: async (c) => ({ ...mode(c), lang: 'es', measure_id: 'storage.fefo_rotation', status: 'in_progress' }),
  },
  'plan.trainingSessions': { roles: EVERYONE, input: async (c) => ({ ...mode(c), year: 2026 }) },
  'plan.addTrainingSession': {
    roles: BUILDERS,
    input: async (c) => ({ ...mode(c), held_on: '2026-11-01', topic: 'Mermas', attendees: 4 }),
  },
  'plan.deleteTrainingSession': {
    roles: BUILDERS,
    input: async (c) => ({ ...mode(c), id: await make.trainingSession(c.of) }),
    foreign: 404,
  },

  'records.list': { roles: EVERYONE, input: async (c) => mode(c) },
  'records.get': { roles: EVERYONE, input: async (c) => ({ ...mode(c), id: await make.record(c.of) }), foreign: 404 },
  'records.photo': { roles: EVERYONE, input: async (c) => ({ ...mode(c), id: await make.recordWithPhoto(c.of) }), foreign: 404 },
  'records.verify': { roles: EVERYONE, input: async (c) => mode(c) },
  'records.create': {
    roles: BUILDERS,
    input: async (c) => ({ ...mode(c), ...validRecord(), shift_id: await make.shift(c.of), session_id: await make.session(c.of) }),
    foreign: 400,
  },
  'records.correct': {
    roles: BUILDERS,
    input: async (c) => ({ ...mode(c), record_id: await make.record(c.of), weight_kg: 2 }),
    foreign: 404,
  },

  'shifts.list': { roles: EVERYONE, input: async (c) => mode(c) },
  'shifts.create': {
    roles: BUILDERS,
    input: async (c) => ({ ...mode(c), shift: { name: 'Mañana', start_time: '06:00', end_time: '14:00' } }),
  },
  'shifts.update': {
    roles: BUILDERS,
    input: async (c) => ({ ...mode(c), id: await make.shift(c.of), shift: { name: 'Tarde', start_time: '14:00', end_time: '22:00' } }),
    foreign: 404,
  },
  'shifts.archive': { roles: BUILDERS, input: async (c) => ({ ...mode(c), id: await make.shift(c.of), archived: true }), foreign: 404 },
  'shifts.delete': { roles: BUILDERS, input: async (c) => ({ ...mode(c), id: await make.shift(c.of) }), foreign: 404 },
  'stations.list': { roles: ADMINS, input: async (c) => mode(c) },
  'stations.startPairing': { roles: ADMINS, input: async (c) => ({ ...mode(c), name: 'Cocina' }) },
  'stations.tarePresets': { roles: ADMINS, input: async (c) => ({ establishment_id: c.est }) },
  'stations.addTarePreset': {
    roles: ADMINS,
    input: async (c) => ({ establishment_id: c.est, name: `Cubo ${++counter}`, tare_kg: 0.35 }),
  },
  'stations.deleteTarePreset': {
    roles: ADMINS,
    input: async (c) => {
      const id = randomUUID();
      await t.db.$executeRaw`INSERT INTO tare_presets (id, establishment_id, name, tare_kg, created_at)
        VALUES (${id}::uuid, ${c.est}::uuid, ${`Cubo ${++counter}`}, 0.35, now())`;
      return { establishment_id: c.est, id };
    },
  },
  'stations.revoke': { roles: ADMINS, input: async (c) => ({ ...mode(c), id: await make.station(c.of) }), foreign: 404 },
  'opening.get': { roles: EVERYONE, input: async (c) => mode(c) },
  'opening.setClosedWeekdays': { roles: BUILDERS, input: async (c) => ({ ...mode(c), calendar: { closed_weekdays: ['sunday'] } }) },
  'opening.createClosure': {
    roles: BUILDERS,
    input: async (c) => ({ ...mode(c), closure: { starts_on: '2027-01-06', ends_on: '2027-01-06', reason: 'Reyes' } }),
  },
  'opening.deleteClosure': { roles: BUILDERS, input: async (c) => ({ ...mode(c), id: await make.closure(c.of) }), foreign: 404 },
  'sessions.list': { roles: EVERYONE, input: async (c) => mode(c) },
  'sessions.get': { roles: EVERYONE, input: async (c) => ({ ...mode(c), id: await make.session(c.of) }), foreign: 404 },

  'donations.entities': { roles: EVERYONE },
  'donations.createEntity': { roles: ADMINS, input: async () => entityBody() },
  'donations.updateEntity': { roles: ADMINS, input: async (c) => ({ id: await make.entity(c.of), name: 'Renombrado' }), foreign: 404 },
  'donations.archiveEntity': { roles: ADMINS, input: async (c) => ({ id: await make.entity(c.of) }), foreign: 404 },
  'donations.restoreEntity': { roles: ADMINS, input: async (c) => ({ id: await make.entity(c.of) }), foreign: 404 },
  'donations.agreements': { roles: EVERYONE, input: async (c) => ({ establishment_id: c.est }) },
  'donations.createAgreement': {
    roles: ADMINS,
    input: async (c) => agreementBody(await make.entity(c.of), c.of.establishmentId),
    foreign: 400,
  },
  'donations.updateAgreement': {
    roles: ADMINS,
    input: async (c) => ({ id: await make.agreement(c.of), valid_until: '2027-12-31' }),
    foreign: 404,
  },
  'donations.list': { roles: EVERYONE, input: async (c) => mode(c) },
  'donations.get': { roles: EVERYONE, input: async (c) => ({ ...mode(c), id: (await make.donation(c.of)).id }), foreign: 404 },
  // The agreement is the organisation's, in both modes: another organisation's is a 400 (a body reference).
  'donations.offer': {
    roles: BUILDERS,
    input: async (c) => ({ ...mode(c), agreement_id: await make.agreementInForce(c.of), lines: DONATION_LINES }),
    foreign: 400,
    modeless: true,
  },
  'donations.decide': {
    roles: BUILDERS,
    input: async (c) => {
      const { id, lineIds } = await make.donation(c.of);
      return { ...mode(c), id, lines: lineIds.map((line_id) => ({ line_id, decision: 'accepted' })) };
    },
    foreign: 404,
  },
  'donations.createLink': { roles: BUILDERS, input: async (c) => ({ ...mode(c), id: (await make.donation(c.of)).id }), foreign: 404 },
  'donations.collect': {
    roles: BUILDERS,
    input: async (c) => ({ ...mode(c), id: (await make.donation(c.of, 'answered')).id }),
    foreign: 404,
  },
  'donations.receive': {
    roles: BUILDERS,
    input: async (c) => ({ ...mode(c), id: (await make.donation(c.of, 'collected')).id }),
    foreign: 404,
  },
  'donations.taxPack': { roles: EVERYONE, input: async (c) => ({ year: 2026, livemode: c.livemode }) },
  'donations.createCertificateLink': {
    roles: ADMINS,
    input: async (c) => ({ ...(await make.certificate(c.of)), livemode: c.livemode }),
    foreign: 404,
  },
  'donations.rerouteLine': {
    roles: BUILDERS,
    input: async (c) => {
      const { id, lineIds } = await make.donation(c.of, 'answered');
      return { ...mode(c), id, line_id: lineIds[1], destino_id: DESTINO_COMPOST };
    },
    foreign: 404,
  },
};

/** The router's procedures, read from the router object itself. */
function procedures(): [string, 'query' | 'mutation'][] {
  const router = createDashboardRouter({
    webhookTargets: { production: false, allowPrivate: false },
    secrets: undefined as never,
    publicUrl: 'http://x',
    catalog: undefined as never,
    signer: undefined as never,
    invitations: undefined as never,
    photos: undefined as never,
  });
  return Object.entries(router._def.procedures as unknown as Record<string, { _def: { type: 'query' | 'mutation' } }>).map(([path, p]) => [
    path,
    p._def.type,
  ]);
}
const kindOf = new Map<string, 'query' | 'mutation'>();

async function signedIn(email: string): Promise<DashboardBrowser> {
  const browser = new DashboardBrowser(t.app);
  await browser.signIn(email, PASSWORD);
  return browser;
}

const browsers = new Map<string, DashboardBrowser>();
/** The member's signed-in browser (signed in once), or a new session when the call ends it. */
async function browserOf(member: Member, entry: Pick<Entry, 'endsSession'>): Promise<DashboardBrowser> {
  if (entry.endsSession) {
    browsers.delete(member.id); // it ends every session of the member, this one too
    return signedIn(member.email);
  }
  let browser = browsers.get(member.id);
  if (!browser) {
    browser = await signedIn(member.email);
    browsers.set(member.id, browser);
  }
  return browser;
}

async function call(browser: DashboardBrowser, path: string, input: unknown): Promise<LightMyRequestResponse> {
  return browser.raw(kindOf.get(path) as 'query' | 'mutation', path, input);
}

const appCode = (res: LightMyRequestResponse) => res.json().error?.data?.app_code;
const describeAnswer = (path: string, who: string, res: LightMyRequestResponse) =>
  `${who}: ${path} → ${res.statusCode} ${res.body.slice(0, 300)}`;

/** Runs a call that must be refused with `status`, and checks that the database did not change. */
async function refused(browser: DashboardBrowser, path: string, input: unknown, status: number, who: string) {
  const before = await tableDigests(t.db);
  const res = await call(browser, path, input);
  const label = describeAnswer(path, who, res);
  expect(res.statusCode, label).toBe(status);
  expect(appCode(res), label).toBe({ 400: 'validation_error', 401: 'unauthorized', 403: 'forbidden', 404: 'not_found' }[status]);
  expect(changedDigests(before, await tableDigests(t.db)), `${label} wrote`).toEqual([]);
}

beforeAll(async () => {
  t = await startTestApp({ clock: () => NOW, config: { TRUST_PROXY: 'true' } });
  const tenantA = await createTenant(t.db);
  const tenantB = await createTenant(t.db);
  members = {
    owner: await createMember(t.db, tenantA.organizationId, 'owner'),
    admin: await createMember(t.db, tenantA.organizationId, 'admin'),
    developer: await createMember(t.db, tenantA.organizationId, 'developer'),
    viewer: await createMember(t.db, tenantA.organizationId, 'viewer'),
  };
  a = { ...tenantA, owner: members.owner };
  b = { ...tenantB, owner: await createMember(t.db, tenantB.organizationId, 'owner') };
  for (const [path, kind] of procedures()) kindOf.set(path, kind);
  // Something in each of A's lists, so that an answer leaking them would show.
  await make.record(a);
  await make.webhook(a);
  await make.integration(a);
});
afterAll(() => t?.close());

describe('dashboard roles', () => {
  it('has a row for every procedure of the router, and no row for a procedure it lacks', () => {
    const paths = [...kindOf.keys()].sort();
    expect(paths.length).toBeGreaterThan(50);
    expect(
      paths.filter((p) => !(p in TABLE)),
      'procedures without a row',
    ).toEqual([]);
    expect(
      Object.keys(TABLE).filter((p) => !kindOf.has(p)),
      'rows without a procedure',
    ).toEqual([]);
  });

  it('without a session, refuses every procedure but the public ones (401, nothing written); the public ones answer', async () => {
    for (const [path, entry] of Object.entries(TABLE)) {
      const input = await entry.input?.({ est: a.establishmentId, livemode: false, of: a });
      const anonymous = new DashboardBrowser(t.app);
      if (entry.roles === 'public') {
        const res = await call(anonymous, path, input);
        expect(res.statusCode, describeAnswer(path, 'nobody', res)).toBe(200);
      } else {
        await refused(anonymous, path, input, 401, 'nobody');
      }
    }
  });

  it.each(ROLES)('%s: may call what the role allows (200) and is refused the rest (403, nothing written)', async (role) => {
    const member = members[role];
    for (const [path, entry] of Object.entries(TABLE)) {
      if (entry.roles === 'public') continue;
      const browser = await browserOf(member, entry);
      const input = await entry.input?.({ est: a.establishmentId, livemode: false, of: a });
      if (entry.roles.includes(role)) {
        const res = await call(browser, path, input);
        expect(res.statusCode, describeAnswer(path, role, res)).toBe(200);
      } else {
        await refused(browser, path, input, 403, role);
      }
    }
  });

  it("keeps a session of another organisation out of everything of this one's, and shows it none of it", async () => {
    const ownRows: TenantRows = { establishmentIds: [b.establishmentId], organizationId: b.organizationId, userIds: [b.owner.id] };
    const markers = () => [a.organizationId, a.establishmentId, ...Object.values(members).map((m) => m.email), ...made];
    for (const [path, entry] of Object.entries(TABLE)) {
      if (entry.roles === 'public') continue;
      const browser = await browserOf(b.owner, entry);
      // A's establishment named outright, then A's objects named from B's own establishment.
      for (const est of [a.establishmentId, b.establishmentId]) {
        const input = await entry.input?.({ est, livemode: false, of: a });
        const scoped = typeof input === 'object' && input !== null && 'establishment_id' in input;
        if (est === b.establishmentId && !scoped) continue; // the same call as above
        const who = `organisation B naming ${est === a.establishmentId ? "A's establishment" : "A's objects in its own"}`;
        if ((scoped && est === a.establishmentId) || entry.foreign) {
          await refused(browser, path, input, scoped && est === a.establishmentId ? 404 : (entry.foreign as number), who);
          continue;
        }
        // Nothing of A is named: B works on its own data, and sees and writes nothing of A's.
        const before = await tableDigests(t.db, ownRows);
        const res = await call(browser, path, input);
        const label = describeAnswer(path, who, res);
        expect(res.statusCode, label).toBe(200);
        for (const marker of markers()) expect(res.body.includes(marker), `${label} shows ${marker}`).toBe(false);
        expect(changedDigests(before, await tableDigests(t.db, ownRows)), `${label} wrote outside B`).toEqual([]);
      }
    }
  });

  it("refuses a delivery of A's named under a subscription of B's own (the one id nested in another)", async () => {
    const own = await make.webhook(b);
    const { delivery_id } = await make.delivery(a);
    const input = { establishment_id: b.establishmentId, livemode: false, id: own, delivery_id };
    await refused(await browserOf(b.owner, {}), 'webhooks.resend', input, 404, 'organisation B');
  });

  it('refuses objects of test mode named in live mode, as objects of another establishment', async () => {
    let checked = 0;
    for (const [path, entry] of Object.entries(TABLE)) {
      if (entry.roles === 'public' || !entry.foreign || entry.modeless) continue;
      const input = await entry.input?.({ est: a.establishmentId, livemode: true, of: a });
      if (!(typeof input === 'object' && input !== null && 'livemode' in input)) continue;
      await refused(await browserOf(members.owner, entry), path, input, entry.foreign, 'the owner in live mode');
      checked += 1;
    }
    expect(checked).toBeGreaterThan(15);
  });
});
