-- What the dashboard's delivery log shows and what the e-mails are written in.
-- - webhook_delivery_attempts.response_body: the first 4 KiB (UTF-8, cut at a character boundary)
--   of the receiver's answer, as Stripe and Svix show it; our own signature headers' values are
--   redacted from it before it is stored (a receiver that echoes its request would otherwise hand
--   them back). NULL when no answer came, and for attempts made before this column existed;
--   response_body_truncated says the answer was longer.
-- - webhook_subscriptions.deactivation_reason: why it was deactivated, 'gone' (the receiver answered
--   410 Gone) or 'failures' (5 deliveries in a row failed); NULL while active and for subscriptions
--   deactivated before this column existed (then the reason is unknown).
-- - users.language / invitations.language: the language ('es' or 'en') of the e-mails sent to a
--   person. A user's is the one they last chose in the dashboard; an invitation's is its inviter's
--   dashboard language when inviting, and it becomes the new user's until they choose another.
ALTER TABLE "webhook_delivery_attempts" ADD COLUMN "response_body" TEXT,
  ADD COLUMN "response_body_truncated" BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE "webhook_subscriptions" ADD COLUMN "deactivation_reason" TEXT,
  ADD CONSTRAINT "webhook_subscriptions_deactivation_reason_check"
    CHECK ("deactivation_reason" IS NULL OR ("status" = 'deactivated' AND "deactivation_reason" IN ('gone', 'failures')));
ALTER TABLE "users" ADD COLUMN "language" TEXT,
  ADD CONSTRAINT "users_language_check" CHECK ("language" IN ('es', 'en'));
ALTER TABLE "invitations" ADD COLUMN "language" TEXT NOT NULL DEFAULT 'es',
  ADD CONSTRAINT "invitations_language_check" CHECK ("language" IN ('es', 'en'));
