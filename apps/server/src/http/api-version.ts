import { API_VERSION_HEADER, API_VERSIONS, type ApiVersion, CURRENT_API_VERSION } from '@merma/schema';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';

const HEADER = API_VERSION_HEADER.toLowerCase();

/**
 * The contract version an `/api/v1` request is answered with: the one it pins in `Merma-Version`
 * (a date from API_VERSIONS), else the current one. The answer names it in the same header, errors
 * included, so a caller can log which contract it got. An unknown version is refused with 400
 * (`validation_error`, detail on `Merma-Version`) before the key is checked: answering it with
 * another contract than the one asked for would be a silent break. Every version listed today
 * answers the same; when a breaking change comes, its date is added to API_VERSIONS and the code
 * that differs reads `request.apiVersion`.
 */
export function resolveApiVersion(request: FastifyRequest, reply: FastifyReply): ApiVersion {
  reply.header(API_VERSION_HEADER, CURRENT_API_VERSION);
  const raw = request.headers[HEADER];
  if (raw === undefined) return CURRENT_API_VERSION;
  const asked = (Array.isArray(raw) ? raw.join(',') : raw).trim();
  if (!(API_VERSIONS as readonly string[]).includes(asked)) {
    throw new AppError(
      'validation_error',
      `Unknown API version ${JSON.stringify(asked.slice(0, 40))} in ${API_VERSION_HEADER}: use one of ${API_VERSIONS.join(', ')}, or send none for the current (${CURRENT_API_VERSION})`,
      [{ path: API_VERSION_HEADER, message: `expected one of ${API_VERSIONS.join(', ')}` }],
    );
  }
  reply.header(API_VERSION_HEADER, asked);
  return asked as ApiVersion;
}
