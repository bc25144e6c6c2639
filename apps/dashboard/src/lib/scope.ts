import type { DashboardEstablishment, Me } from '@merma/schema/dashboard';
import { useSuspenseQuery } from '@tanstack/react-query';
import { getRouteApi } from '@tanstack/react-router';
import { trpc } from '../trpc.ts';
import { SignedOutError } from './errors.ts';
import type { Mode } from './search.ts';

/** The establishment a page works on: the one in the URL when it is the user's, else the first. */
export function resolveEstablishment(me: Me, id: string | undefined): DashboardEstablishment | null {
  return me.establishments.find((e) => e.id === id) ?? me.establishments[0] ?? null;
}

/** The signed-in user, inside the app (whose route only renders with a session). */
export function useMe(): Me {
  const me = useSuspenseQuery(trpc.accounts.me.queryOptions()).data;
  if (!me) throw new SignedOutError();
  return me;
}

const shell = getRouteApi('/app');

export type Scope = {
  me: Me;
  establishment: DashboardEstablishment | null;
  mode: Mode;
  livemode: boolean;
};

/** The signed-in user, and the establishment and mode chosen in the shell (URL search params). */
export function useScope(): Scope {
  const me = useMe();
  const search = shell.useSearch();
  return {
    me,
    establishment: resolveEstablishment(me, search.establishment),
    mode: search.mode,
    livemode: search.mode === 'live',
  };
}
