import type { ErrorCode, ErrorDetail } from '@merma/schema';
import type { DashboardRouter } from '@merma/server/dashboard';
import {
  type AnyTRPCProcedure,
  type inferRouterError,
  type inferRouterInputs,
  type inferRouterOutputs,
  type TRPC_ERROR_CODE_KEY,
  TRPCError,
  type TRPCRouterRecord,
} from '@trpc/server';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import { TRPC_ERROR_CODES_BY_KEY } from '@trpc/server/rpc';
import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';

/**
 * The server's `/trpc` endpoint, answered from fixtures: the dashboard's own tRPC client (trpc.ts,
 * httpBatchLink and all) sends its real requests, and this answers them in tRPC's wire format with
 * the server's error shape (`data.app_code`, `data.details`). Fixtures are typed from the server's
 * router (`DashboardRouter`): a procedure renamed, or an output whose shape changed, breaks the
 * typecheck of the tests that answer it.
 */

type Paths<R, Prefix extends string = ''> = {
  [K in keyof R & string]: R[K] extends AnyTRPCProcedure
    ? `${Prefix}${K}`
    : R[K] extends TRPCRouterRecord
      ? Paths<R[K], `${Prefix}${K}.`>
      : never;
}[keyof R & string];

type At<T, P extends string> = P extends `${infer Head}.${infer Rest}`
  ? Head extends keyof T
    ? At<T[Head], Rest>
    : never
  : P extends keyof T
    ? T[P]
    : never;

/** Every procedure of the dashboard's router, by its dotted path (`records.list`). */
export type ProcedurePath = Paths<DashboardRouter['_def']['record']>;
export type Input<P extends ProcedurePath> = At<inferRouterInputs<DashboardRouter>, P>;
export type Output<P extends ProcedurePath> = At<inferRouterOutputs<DashboardRouter>, P>;
/** The body of a failed call, as the server's error formatter shapes it (trpc/dashboard-base.ts). */
export type ErrorShape = inferRouterError<DashboardRouter>;

/** A fixture: the answer itself, or a function of the input that returns it (or throws an ApiError). */
export type Fixture<P extends ProcedurePath> = Output<P> | ((input: Input<P>) => Output<P> | Promise<Output<P>>);
export type Fixtures = { [P in ProcedurePath]?: Fixture<P> };

/** A refusal from the server, by its contract code (`app_code`), with the fields it names. */
export class ApiError extends Error {
  constructor(
    readonly appCode: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
  ) {
    super(message);
  }
}

/** The server's table of contract codes to tRPC codes (trpc/dashboard-base.ts), which sets the HTTP status. */
const TRPC_CODE: Record<ErrorCode, TRPC_ERROR_CODE_KEY> = {
  validation_error: 'BAD_REQUEST',
  unauthorized: 'UNAUTHORIZED',
  forbidden: 'FORBIDDEN',
  plan_required: 'FORBIDDEN',
  not_found: 'NOT_FOUND',
  method_not_allowed: 'METHOD_NOT_SUPPORTED',
  request_timeout: 'TIMEOUT',
  conflict: 'CONFLICT',
  gone: 'NOT_FOUND',
  payload_too_large: 'PAYLOAD_TOO_LARGE',
  unsupported_media_type: 'UNSUPPORTED_MEDIA_TYPE',
  headers_too_large: 'BAD_REQUEST',
  rate_limited: 'TOO_MANY_REQUESTS',
  service_unavailable: 'SERVICE_UNAVAILABLE',
  internal: 'INTERNAL_SERVER_ERROR',
};

function errorShape(path: string, error: ApiError): ErrorShape {
  const code = TRPC_CODE[error.appCode];
  return {
    message: error.message,
    code: TRPC_ERROR_CODES_BY_KEY[code],
    data: {
      code,
      httpStatus: getHTTPStatusCodeFromError(new TRPCError({ code })),
      app_code: error.appCode,
      details: error.details,
      path,
    },
  };
}

/** One call the app made: which procedure, with what input. */
export type Call = { path: ProcedurePath; type: 'query' | 'mutation'; input: unknown };

let fixtures: Fixtures = {};
const calls: Call[] = [];
const missing: string[] = [];

type Answer = { result: { data: unknown } } | { error: ErrorShape };

async function answer(path: string, input: unknown): Promise<{ status: number; body: Answer }> {
  const fixture = (fixtures as Record<string, unknown>)[path];
  if (fixture === undefined) {
    missing.push(path);
    // A 404, not a 500: the app repeats a failed call only when it may be passing (trpc.ts).
    const body = errorShape(path, new ApiError('not_found', `No fixture for ${path}`));
    return { status: body.data.httpStatus, body: { error: body } };
  }
  try {
    const data = typeof fixture === 'function' ? await (fixture as (input: unknown) => unknown)(input) : fixture;
    // A copy through JSON, as the wire makes it: the page never holds the fixture's own objects.
    return { status: 200, body: { result: { data: data === undefined ? undefined : JSON.parse(JSON.stringify(data)) } } };
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    const body = errorShape(path, error);
    return { status: body.data.httpStatus, body: { error: body } };
  }
}

const trpcHandler = http.all('*/trpc/:paths', async ({ request, params }) => {
  const url = new URL(request.url);
  const paths = String(params.paths).split(',');
  const batch = url.searchParams.get('batch') === '1';
  const type = request.method === 'GET' ? 'query' : 'mutation';
  const raw = type === 'query' ? url.searchParams.get('input') : await request.text();
  const inputs: unknown = raw ? JSON.parse(raw) : undefined;
  const answers = await Promise.all(
    paths.map((path, i) => {
      const input = batch ? (inputs as Record<string, unknown> | undefined)?.[i] : inputs;
      calls.push({ path: path as ProcedurePath, type, input });
      return answer(path, input);
    }),
  );
  const statuses = new Set(answers.map((a) => a.status));
  const status = statuses.size === 1 ? answers[0]?.status : 207;
  return HttpResponse.json(batch ? answers.map((a) => a.body) : answers[0]?.body, { status });
});

/** The network of the tests: `/trpc` answered from fixtures, anything else refused (and reported). */
export const network = setupServer(trpcHandler);

/** Starts answering; any other request fails, and so does the test that made it. */
export function listen() {
  network.listen({
    async onUnhandledFrame({ frame }) {
      missing.push(await frame.getUnhandledMessage());
      throw new Error('Only /trpc is answered in these tests');
    },
  });
}

export const api = {
  /** Sets the answers (merged over those set before in this test). */
  use(more: Fixtures) {
    fixtures = { ...fixtures, ...more };
  },
  /** The inputs of the calls made to one procedure, oldest first. */
  inputs<P extends ProcedurePath>(path: P): Input<P>[] {
    return calls.filter((c) => c.path === path).map((c) => c.input as Input<P>);
  },
  /** The input of the last call made to one procedure. */
  last<P extends ProcedurePath>(path: P): Input<P> | undefined {
    return api.inputs(path).at(-1);
  },
  calls(): readonly Call[] {
    return calls;
  },
  /** Procedures the app called that no fixture answers, and other requests: each one fails the test. */
  missing(): readonly string[] {
    return missing;
  },
  reset() {
    fixtures = {};
    calls.length = 0;
    missing.length = 0;
  },
};
