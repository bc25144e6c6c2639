-- AlterTable: secret rotation (POST /api/v1/webhooks/{id}/rotate-secret). The secret a rotation
-- replaces keeps signing deliveries beside the new one until previous_secret_expires_at; stored
-- like the current secret. One previous secret at most: rotating again replaces it.
ALTER TABLE "webhook_subscriptions" ADD COLUMN "previous_secret" TEXT, ADD COLUMN "previous_secret_expires_at" TIMESTAMPTZ(3),
  ADD CONSTRAINT "webhook_subscriptions_previous_secret_check"
    CHECK (("previous_secret" IS NULL) = ("previous_secret_expires_at" IS NULL));

-- AlterTable: recovery (POST /api/v1/webhooks/{id}/recover) gives failed deliveries a fresh retry
-- schedule; schedule_base is the number of attempts made before the current schedule began.
ALTER TABLE "webhook_deliveries" ADD COLUMN "schedule_base" INTEGER NOT NULL DEFAULT 0;
