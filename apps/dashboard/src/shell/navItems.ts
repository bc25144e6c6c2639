import {
  IconBaguette,
  IconChartBar,
  IconClock,
  IconFileText,
  IconHeartHandshake,
  IconList,
  IconPlugConnected,
  IconTrendingUp,
  IconUsers,
} from '@tabler/icons-react';

/**
 * The navigation's pages every member sees, in its order: what the kitchen looks at, then (under
 * "Settings") what every role reaches; Navigation adds the pages a role may or may not see. Shared
 * with the pages' first frames (src/frame/Frame.tsx), whose navigation is this list.
 */
export const WASTE_PAGES = [
  { to: '/overview', label: 'nav.overview', Icon: IconChartBar },
  { to: '/records', label: 'nav.records', Icon: IconList },
  { to: '/forecast', label: 'nav.forecast', Icon: IconTrendingUp },
  { to: '/plan', label: 'nav.plan', Icon: IconFileText },
  { to: '/shifts', label: 'nav.shifts', Icon: IconClock },
  { to: '/products', label: 'nav.products', Icon: IconBaguette },
  { to: '/donations', label: 'nav.donations', Icon: IconHeartHandshake },
] as const;

export const EVERY_ROLE_SETTINGS = [
  { to: '/integrations', label: 'nav.integrations', Icon: IconPlugConnected },
  { to: '/team', label: 'nav.team', Icon: IconUsers },
] as const;
