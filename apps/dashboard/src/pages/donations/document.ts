import type { DashboardDonationAgreement } from '@merma/schema/dashboard';
import { HttpError } from '../../lib/errors.ts';
import { csrfToken } from '../../trpc.ts';

/**
 * A donation agreement's signed PDF on the dashboard's surface (the server's
 * http/surfaces/dashboard-documents.ts): a plain route, since a tRPC input is JSON. The download is a
 * link; the upload a PUT of the file as it is, with the session's CSRF header, as /trpc's POSTs carry.
 */
export const documentUrl = (agreementId: string) => `/files/donation-agreements/${agreementId}/document`;

/** PUTs `file` as it is to a file route of the dashboard's surface; the JSON it answers, or an HttpError. */
export async function putPdf<T>(url: string, file: Blob): Promise<T> {
  const token = csrfToken();
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'PUT',
      body: file,
      credentials: 'same-origin',
      headers: { 'content-type': 'application/pdf', ...(token ? { 'x-csrf-token': token } : {}) },
    });
  } catch {
    throw new HttpError(undefined, null); // no answer: the network
  }
  const body: unknown = await res.json().catch(() => null);
  if (!res.ok) throw new HttpError(res.status, body);
  return body as T;
}

/** Stores `file` as the agreement's signed document; the agreement as the page lists it, its SHA-256 included. */
export const uploadDocument = (agreementId: string, file: Blob) => putPdf<DashboardDonationAgreement>(documentUrl(agreementId), file);
