import type { NotificationData } from '@mantine/notifications';
import { wantedOnce } from './wanted.ts';

/**
 * The app's notifications (Mantine's toasts), with Mantine's package and its container loaded when
 * the first one is shown rather than with every page: together 8–9 kB compressed that a page
 * which shows none (the overview, for one) no longer downloads. `show` queues the notification
 * in Mantine's store once the package has loaded, a task later; `DeferredToasts` mounts the
 * container that shows it. Pages import `notifications` from here, never from the package.
 */
const toasts = wantedOnce();

export const notifications = {
  show(data: NotificationData): void {
    toasts.want();
    void import('@mantine/notifications').then((m) => m.notifications.show(data));
  },
};

/** Whether a notification was ever shown (the container is wanted from then on), and its changes. */
export const toastsWanted = toasts.wanted;
export const onToastsWanted = toasts.subscribe;
