import type { Me } from '@merma/schema/dashboard';
import type { QueryClient } from '@tanstack/react-query';
import {
  createRootRouteWithContext,
  createRoute,
  createRouter,
  lazyRouteComponent,
  Outlet,
  type RouterHistory,
  redirect,
  retainSearchParams,
} from '@tanstack/react-router';
import { AuthRouteError } from './components/AuthLayout.tsx';
import { Deferred } from './components/Deferred.tsx';
import { NotFound, PagePending, RouteError } from './components/states.tsx';
import { can } from './lib/permissions.ts';
import { resolveEstablishment } from './lib/scope.ts';
import {
  auditSearch,
  donationsSearch,
  forecastSearch,
  overviewSearch,
  pageSearch,
  planSearch,
  recordsSearch,
  scopeSearch,
  signInSearch,
  tokenSearch,
} from './lib/search.ts';
import { overviewQuery, recordsQuery, sessionRecordsQuery, todayIn } from './lib/waste.ts';
import { SignInPage } from './pages/auth/SignInPage.tsx';
import {
  auditFilter,
  auditPageOptions,
  defaultTaxYear,
  deliveriesOptions,
  donationAgreementsOptions,
  donationsListOptions,
  expiringAgreementsOptions,
  looksLikeAction,
  taxPackOptions,
} from './queries.ts';
import { onUnauthorized, queryClient, type TRPC, trpc } from './trpc.ts';

/**
 * The route tree, in code (no generator). The sign-in page is in the first bundle; every other page
 * is loaded when first needed. Loaders fill the query cache; pages read it with `useSuspenseQuery`.
 */

export type RouterContext = { queryClient: QueryClient; trpc: TRPC };

const rootRoute = createRootRouteWithContext<RouterContext>()({
  component: Outlet,
  notFoundComponent: NotFound,
});

// --- Before signing in -------------------------------------------------------------------------

const signInRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: 'sign-in',
  validateSearch: signInSearch,
  component: SignInPage,
  errorComponent: AuthRouteError,
});

const forgotPasswordRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: 'forgot-password',
  component: lazyRouteComponent(() => import('./pages/auth/ForgotPasswordPage.tsx'), 'ForgotPasswordPage'),
  errorComponent: AuthRouteError,
});

const resetPasswordRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: 'reset-password',
  validateSearch: tokenSearch,
  component: lazyRouteComponent(() => import('./pages/auth/ResetPasswordPage.tsx'), 'ResetPasswordPage'),
  errorComponent: AuthRouteError,
});

const invitationRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: 'invitation',
  validateSearch: tokenSearch,
  loaderDeps: ({ search }) => ({ token: search.token }),
  loader: async ({ context, deps }) => {
    if (deps.token) await context.queryClient.ensureQueryData(context.trpc.accounts.invitation.queryOptions({ token: deps.token }));
  },
  component: lazyRouteComponent(() => import('./pages/auth/InvitationPage.tsx'), 'InvitationPage'),
  errorComponent: lazyRouteComponent(() => import('./pages/auth/InvitationPage.tsx'), 'InvitationError'),
});

const linkRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: 'link',
  validateSearch: tokenSearch,
  component: lazyRouteComponent(() => import('./pages/auth/LinkPage.tsx'), 'LinkPage'),
  errorComponent: AuthRouteError,
});

// --- The app (signed in) -----------------------------------------------------------------------

/**
 * A signed-in page's component, loaded when first needed and rendered through `Deferred`: the
 * router mounts a page in a synchronous update, which React cannot split, so the page itself is
 * rendered in the interruptible pass that follows (a phone keeps answering taps meanwhile).
 */
function deferredPage<T extends Record<string, unknown>>(load: () => Promise<T>, name: keyof T & string) {
  const Lazy = lazyRouteComponent(load, name as never) as ReturnType<typeof lazyRouteComponent>;
  // biome-ignore lint/correctness/noComponentHookFactories: made once per route when this module loads, never during a render.
  function Page(props: object) {
    return (
      <Deferred>
        <Lazy {...props} />
      </Deferred>
    );
  }
  Page.preload = Lazy.preload;
  return Page;
}

const appRoute = createRoute({
  getParentRoute: () => rootRoute,
  id: 'app',
  validateSearch: scopeSearch,
  // Links between pages keep the chosen establishment and mode.
  search: { middlewares: [retainSearchParams(['establishment', 'mode'])] },
  beforeLoad: async ({ context, location }) => {
    // A convenience only: every procedure checks the session itself. `accounts.me` is null without one.
    const me = await context.queryClient.ensureQueryData(context.trpc.accounts.me.queryOptions());
    if (!me) throw redirect({ to: '/sign-in', search: { redirect: location.href } });
    return { me };
  },
  component: deferredPage(() => import('./shell/AppLayout.tsx'), 'AppLayout'),
});

const indexRoute = createRoute({
  getParentRoute: () => appRoute,
  path: '/',
  beforeLoad: () => {
    throw redirect({ to: '/overview', search: true });
  },
});

/** The scope of a waste page's queries, or null when the organisation has no establishment. */
function scopeOf(me: Me, search: { establishment?: string | undefined; mode: 'test' | 'live' }) {
  const establishment = resolveEstablishment(me, search.establishment);
  return establishment ? { establishment, scope: { establishment_id: establishment.id, livemode: search.mode === 'live' } } : null;
}

const overviewRoute = createRoute({
  getParentRoute: () => appRoute,
  path: 'overview',
  validateSearch: overviewSearch,
  loaderDeps: ({ search }) => ({ establishment: search.establishment, mode: search.mode, range: search.range }),
  loader: async ({ context, deps }) => {
    const found = scopeOf(context.me, deps);
    if (!found) return;
    const { scope, establishment } = found;
    const q = context.queryClient;
    void q.prefetchQuery(context.trpc.analytics.benchmark.queryOptions(scope));
    void q.prefetchQuery(context.trpc.analytics.alerts.queryOptions(scope));
    void q.prefetchQuery(context.trpc.donations.agreements.queryOptions({ establishment_id: establishment.id, status: 'expiring' }));
    await Promise.all([
      q.ensureQueryData(context.trpc.catalog.get.queryOptions()),
      q.ensureQueryData(context.trpc.analytics.periods.queryOptions(scope)),
      q.ensureQueryData(
        context.trpc.analytics.get.queryOptions({ ...scope, ...overviewQuery(deps.range, todayIn(establishment.timezone)) }),
      ),
    ]);
  },
  component: deferredPage(() => import('./pages/overview/OverviewPage.tsx'), 'OverviewPage'),
});

const recordsRoute = createRoute({
  getParentRoute: () => appRoute,
  path: 'records',
  validateSearch: recordsSearch,
  loaderDeps: ({ search }) => search,
  loader: async ({ context, deps }) => {
    const found = scopeOf(context.me, deps);
    if (!found) return;
    const q = context.queryClient;
    await Promise.all([
      q.ensureQueryData(context.trpc.catalog.get.queryOptions()),
      q.ensureQueryData(context.trpc.shifts.list.queryOptions(found.scope)),
      q.ensureQueryData(context.trpc.records.list.queryOptions(recordsQuery(found.scope, deps, found.establishment.timezone))),
    ]);
  },
  component: deferredPage(() => import('./pages/records/RecordsPage.tsx'), 'RecordsPage'),
});

const forecastRoute = createRoute({
  getParentRoute: () => appRoute,
  path: 'forecast',
  validateSearch: forecastSearch,
  component: deferredPage(() => import('./pages/forecast/ForecastPage.tsx'), 'ForecastPage'),
});

const planRoute = createRoute({
  getParentRoute: () => appRoute,
  path: 'plan',
  validateSearch: planSearch,
  component: deferredPage(() => import('./pages/plan/PlanPage.tsx'), 'PlanPage'),
});

const shiftsRoute = createRoute({
  getParentRoute: () => appRoute,
  path: 'shifts',
  loaderDeps: ({ search }) => ({ establishment: search.establishment, mode: search.mode }),
  loader: async ({ context, deps }) => {
    const found = scopeOf(context.me, deps);
    if (found) await context.queryClient.ensureQueryData(context.trpc.shifts.list.queryOptions(found.scope));
  },
  component: deferredPage(() => import('./pages/shifts/ShiftsPage.tsx'), 'ShiftsPage'),
});

const productsRoute = createRoute({
  getParentRoute: () => appRoute,
  path: 'products',
  loader: ({ context }) => context.queryClient.ensureQueryData(context.trpc.catalog.products.queryOptions()),
  component: deferredPage(() => import('./pages/products/ProductsPage.tsx'), 'ProductsPage'),
});

const donationsRoute = createRoute({
  getParentRoute: () => appRoute,
  path: 'donations',
  validateSearch: donationsSearch,
  loaderDeps: ({ search }) => ({
    entity: search.entity,
    covers: search.covers,
    establishment: search.establishment,
    mode: search.mode,
    status: search.status,
    waiting: search.waiting,
    page: search.page,
    tax_year: search.tax_year,
  }),
  loader: async ({ context, deps }) => {
    const q = context.queryClient;
    void q.prefetchQuery(expiringAgreementsOptions());
    // The tax pack is read by its own section, which waits for it: fetched now, not waited for.
    void q.prefetchQuery(taxPackOptions(deps.tax_year ?? defaultTaxYear(), deps.mode === 'live'));
    const found = scopeOf(context.me, deps);
    const donations = found ? q.ensureQueryData(donationsListOptions(found.scope, deps)) : null;
    const entities = await q.ensureQueryData(context.trpc.donations.entities.queryOptions());
    const known = { establishmentIds: context.me.establishments.map((e) => e.id), entityIds: entities.map((e) => e.id) };
    await Promise.all([q.ensureQueryData(donationAgreementsOptions(deps, known)), donations]);
  },
  component: deferredPage(() => import('./pages/donations/DonationsPage.tsx'), 'DonationsPage'),
});

const sessionRoute = createRoute({
  getParentRoute: () => appRoute,
  path: 'sessions/$id',
  loaderDeps: ({ search }) => ({ establishment: search.establishment, mode: search.mode }),
  loader: async ({ context, deps, params }) => {
    const found = scopeOf(context.me, deps);
    if (!found) return;
    const q = context.queryClient;
    await Promise.all([
      q.ensureQueryData(context.trpc.sessions.get.queryOptions({ ...found.scope, id: params.id })),
      q.ensureQueryData(context.trpc.catalog.get.queryOptions()),
      q.ensureQueryData(context.trpc.shifts.list.queryOptions(found.scope)),
      q.ensureQueryData(context.trpc.records.list.queryOptions(sessionRecordsQuery(found.scope, params.id))),
    ]);
  },
  component: deferredPage(() => import('./pages/sessions/SessionPage.tsx'), 'SessionPage'),
});

const keysRoute = createRoute({
  getParentRoute: () => appRoute,
  path: 'keys',
  loaderDeps: ({ search }) => ({ establishment: search.establishment }),
  loader: async ({ context, deps }) => {
    const establishment = resolveEstablishment(context.me, deps.establishment);
    if (establishment && can.viewKeys(context.me.role))
      await context.queryClient.ensureQueryData(context.trpc.keys.list.queryOptions({ establishment_id: establishment.id }));
  },
  component: deferredPage(() => import('./pages/keys/KeysPage.tsx'), 'KeysPage'),
});

const stationsRoute = createRoute({
  getParentRoute: () => appRoute,
  path: 'stations',
  loaderDeps: ({ search }) => ({ establishment: search.establishment, mode: search.mode }),
  loader: async ({ context, deps }) => {
    const found = scopeOf(context.me, deps);
    if (found && can.manageTeam(context.me.role))
      await context.queryClient.ensureQueryData(context.trpc.stations.list.queryOptions(found.scope));
  },
  component: deferredPage(() => import('./pages/stations/StationsPage.tsx'), 'StationsPage'),
});

const integrationsRoute = createRoute({
  getParentRoute: () => appRoute,
  path: 'integrations',
  loaderDeps: ({ search }) => ({ establishment: search.establishment, mode: search.mode }),
  loader: async ({ context, deps }) => {
    const establishment = resolveEstablishment(context.me, deps.establishment);
    if (!establishment) return;
    const scope = { establishment_id: establishment.id, livemode: deps.mode === 'live' };
    void context.queryClient.prefetchQuery(context.trpc.inbound.endpoint.queryOptions({ establishment_id: establishment.id }));
    await context.queryClient.ensureQueryData(context.trpc.webhooks.list.queryOptions(scope));
  },
  component: deferredPage(() => import('./pages/integrations/IntegrationsPage.tsx'), 'IntegrationsPage'),
});

const integrationRoute = createRoute({
  getParentRoute: () => appRoute,
  path: 'integrations/$id',
  validateSearch: pageSearch,
  loaderDeps: ({ search }) => ({ establishment: search.establishment, mode: search.mode, page: search.page ?? 1 }),
  loader: async ({ context, deps, params }) => {
    const establishment = resolveEstablishment(context.me, deps.establishment);
    if (!establishment) return;
    const scope = { establishment_id: establishment.id, livemode: deps.mode === 'live', id: params.id };
    await Promise.all([
      context.queryClient.ensureQueryData(context.trpc.webhooks.get.queryOptions(scope)),
      context.queryClient.ensureQueryData(deliveriesOptions(scope, deps.page)),
    ]);
  },
  component: deferredPage(() => import('./pages/integrations/IntegrationPage.tsx'), 'IntegrationPage'),
});

const teamRoute = createRoute({
  getParentRoute: () => appRoute,
  path: 'team',
  loader: async ({ context }) => {
    await context.queryClient.ensureQueryData(context.trpc.team.get.queryOptions());
  },
  component: deferredPage(() => import('./pages/team/TeamPage.tsx'), 'TeamPage'),
});

const auditRoute = createRoute({
  getParentRoute: () => appRoute,
  path: 'audit',
  validateSearch: auditSearch,
  loaderDeps: ({ search }) => ({ actor: search.actor, action: search.action, from: search.from, to: search.to }),
  loader: async ({ context, deps }) => {
    // A prefetch, which never fails: an unknown action in the URL is the page's to leave out.
    if (can.viewAudit(context.me.role)) await context.queryClient.prefetchQuery(auditPageOptions(auditFilter(deps, looksLikeAction)));
  },
  component: deferredPage(() => import('./pages/audit/AuditPage.tsx'), 'AuditPage'),
});

const routeTree = rootRoute.addChildren([
  signInRoute,
  forgotPasswordRoute,
  resetPasswordRoute,
  invitationRoute,
  linkRoute,
  appRoute.addChildren([
    indexRoute,
    overviewRoute,
    recordsRoute,
    forecastRoute,
    planRoute,
    shiftsRoute,
    productsRoute,
    donationsRoute,
    sessionRoute,
    keysRoute,
    stationsRoute,
    integrationsRoute,
    integrationRoute,
    teamRoute,
    auditRoute,
  ]),
]);

/**
 * The app's router over `history` (the browser's by default; the component tests pass a memory
 * history). The router made last is the one a 401 sends to sign-in.
 */
export function createAppRouter(history?: RouterHistory) {
  const router = createRouter({
    routeTree,
    ...(history ? { history } : {}),
    basepath: '/dashboard',
    context: { queryClient, trpc },
    defaultPreload: 'intent',
    // The query cache decides freshness; the router always asks it.
    defaultPreloadStaleTime: 0,
    defaultPendingComponent: PagePending,
    defaultErrorComponent: RouteError,
    scrollRestoration: true,
  });
  // A call answered 401 inside the app (the session ended or was ended elsewhere): back to sign-in.
  onUnauthorized(() => {
    const { location, matches } = router.state;
    if (!matches.some((m) => m.routeId.startsWith('/app'))) return;
    queryClient.clear();
    void router.navigate({ to: '/sign-in', search: { redirect: location.href } });
  });
  return router;
}

export const router = createAppRouter();

declare module '@tanstack/react-router' {
  interface Register {
    router: typeof router;
  }
}
