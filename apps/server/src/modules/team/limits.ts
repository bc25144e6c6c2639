import type { Redis } from 'ioredis';
import { type RateLimiterAbstract, RateLimiterRes } from 'rate-limiter-flexible';
import { createLimit, giveBack as giveBackPoint, limitReached } from '../../limits.js';

/**
 * How many invitation e-mails the team page may send, so that a member's account (or a stolen
 * session) cannot turn our mail into a spam or phishing channel. On the service's counters
 * (limits.ts): in Redis when REDIS_URL is set (shared by every replica, an in-memory limiter
 * standing in while Redis is down), in memory otherwise.
 *
 * - 20 an hour per inviter (the user, whatever the organisation);
 * - 50 a day per organisation, whoever invites;
 * - 3 a day per invited address within an organisation, whoever invites. The address is counted
 *   per organisation, not across all of them: a global count would let a member of one customer
 *   use up another customer's invitations to a new hire for a day. Organisations are created by
 *   the operator only, so the mails one address can receive stay bounded.
 *
 * An invitation takes one unit of each before anything is written; past any limit it is refused
 * with 429 rate_limited and Retry-After, nothing stored or mailed. An invitation that then fails
 * (a role the inviter cannot grant, an existing member, the e-mail not sent) gives its units back:
 * only invitations that reached the mail server count. `merma-admin` invitations are not limited.
 */
export const INVITATION_LIMITS = {
  inviter: { points: 20, duration: 3600 },
  organization: { points: 50, duration: 86_400 },
  address: { points: 3, duration: 86_400 },
} as const;

type Name = keyof typeof INVITATION_LIMITS;
const ORDER: readonly Name[] = ['inviter', 'organization', 'address'];

export type InvitationAllowance = {
  /** Gives back what `take` took (the invitation was not sent). */
  giveBack(): Promise<void>;
};

export type InvitationLimiter = {
  /** Takes one invitation from each allowance; throws 429 rate_limited, taking nothing, past any of them. */
  take(input: { inviterId: string; organizationId: string; email: string }): Promise<InvitationAllowance>;
};

const MESSAGES: Record<Name, string> = {
  inviter: 'You have sent too many invitations in the last hour: try again later',
  organization: 'This organisation has sent too many invitations today: try again later',
  address: 'This address has been invited too many times today: try again later',
};

export function createInvitationLimiter(redis: Redis | undefined): InvitationLimiter {
  const limiters = Object.fromEntries(
    ORDER.map((name) => [name, createLimit(redis, { ...INVITATION_LIMITS[name], keyPrefix: `merma:invitations:${name}` })]),
  ) as Record<Name, RateLimiterAbstract>;

  return {
    async take({ inviterId, organizationId, email }) {
      const keys: Record<Name, string> = {
        inviter: inviterId,
        organization: organizationId,
        address: `${organizationId}:${email.trim().toLowerCase()}`,
      };
      const taken: Name[] = [];
      const giveBack = async () => {
        await Promise.allSettled(taken.map((name) => giveBackPoint(limiters[name], keys[name])));
      };
      for (const name of ORDER) {
        try {
          await limiters[name].consume(keys[name]);
          taken.push(name);
        } catch (err) {
          await giveBack();
          throw err instanceof RateLimiterRes ? limitReached(err, MESSAGES[name]) : err;
        }
      }
      return { giveBack };
    },
  };
}
