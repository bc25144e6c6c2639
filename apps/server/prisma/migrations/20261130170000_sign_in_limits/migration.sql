-- The sign-in guard's counters (modules/accounts/lockout.ts): failed passwords per account and per
-- address, reset e-mails and link attempts, each under its limiter's prefix. In the database, not in
-- Redis, so that a lockout outlives a restart of Redis (which keeps nothing on disk) and of every
-- replica: emptying the counters must not hand a password guesser ten more tries. The columns are
-- rate-limiter-flexible's RateLimiterPostgres table: `expire` in epoch milliseconds (NULL: never);
-- rows expired an hour ago are deleted by the limiter itself, so an e-mail address or an IP
-- address stays here at most its window (a day for an address) and an hour.
CREATE TABLE "sign_in_limits" (
  "key" TEXT NOT NULL,
  "points" INTEGER NOT NULL DEFAULT 0,
  "expire" BIGINT,
  CONSTRAINT "sign_in_limits_pkey" PRIMARY KEY ("key")
);
