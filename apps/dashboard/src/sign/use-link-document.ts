import { useCallback, useEffect, useState } from 'react';
import { LinkError } from './client.ts';
import type { ScreenProblem } from './parts/ProblemScreen.tsx';

/** Where a link's page stands: loading, a problem instead of the document, the document to sign, or signed. */
export type LinkScreen<D, S extends D = D> =
  | { kind: 'loading' }
  | { kind: 'problem'; problem: ScreenProblem }
  | { kind: 'form'; doc: D }
  | { kind: 'signed'; doc: S; alreadySigned: boolean };

/**
 * The life of a link's page, whatever it signs (a donation's note, a year's certificate): the
 * document read through the link, then the screen `screenOf` picks for it; a link the server says
 * is dead is forgotten (`forget`) and said so. `send` posts the signature: signed already (another
 * phone, a second tap: a 410 `used`) reads the document again and says this signature was not
 * kept; a dead link or a donation answered another way ends on its problem; any other failure is
 * thrown back to the form, which says it and keeps the answers to send again.
 *
 * `read` and `sign` are null when the address holds no link; they are the link's client's own
 * functions, the same on every render (a new `read` reads the document again).
 */
export function useLinkDocument<D, S extends D, B>({
  read,
  sign,
  screenOf,
  forget,
}: {
  read: (() => Promise<D>) | null;
  sign: ((body: B) => Promise<D>) | null;
  screenOf: (doc: D, alreadySigned: boolean) => LinkScreen<D, S>;
  forget: () => void;
}) {
  const [screen, setScreen] = useState<LinkScreen<D, S>>(read ? { kind: 'loading' } : { kind: 'problem', problem: 'invalid' });

  const failed = useCallback(
    (error: unknown): LinkScreen<D, S> => {
      if (!(error instanceof LinkError)) throw error;
      if (error.linkDead) forget();
      return { kind: 'problem', problem: error.problem === 'invalid_input' ? 'server' : error.problem };
    },
    [forget],
  );

  const load = useCallback(
    async (alreadySigned = false) => {
      if (!read) return;
      setScreen({ kind: 'loading' });
      try {
        setScreen(screenOf(await read(), alreadySigned));
      } catch (error) {
        setScreen(failed(error));
      }
    },
    [read, screenOf, failed],
  );

  useEffect(() => {
    void load();
  }, [load]);

  const send = async (body: B) => {
    if (!sign) return;
    try {
      setScreen(screenOf(await sign(body), false));
    } catch (error) {
      if (!(error instanceof LinkError)) throw error;
      if (error.problem === 'used') return load(true);
      if (error.linkDead || error.problem === 'answered') return setScreen(failed(error));
      throw error;
    }
  };

  return { screen, reload: () => void load(), send };
}
