import { type ReactNode, useDeferredValue } from 'react';

/**
 * Its children, rendered in a second pass that React may interrupt: the first render (inside the
 * router's or the query cache's synchronous update, which React cannot split) draws nothing, and
 * React then renders the children at a transition's priority, yielding to the browser every few
 * milliseconds. A page of a few hundred components (a table of 50 records, the overview's cards)
 * was one task of 0.2–0.9 s on a phone, during which a tap went unanswered; it is now many short
 * ones. Nothing is shown in between, for a frame or two: no spinner flashes on a fast machine.
 */
export function Deferred({ children }: { children: ReactNode }) {
  const ready = useDeferredValue(true, false);
  return ready ? children : null;
}
