import { Notifications } from '@mantine/notifications';

/**
 * Where notifications show: bottom right, away from the header's mode switch and menus, which a
 * toast at the top would cover. A chunk of its own, loaded when the first notification is shown
 * (DeferredToasts.tsx, lib/notify.ts), not with every page.
 */
export default function Toasts() {
  return <Notifications position="bottom-right" />;
}
