-- Full verifications run by the worker (POST /api/v1/records/verifications), with their progress
-- and result. One queued or running run per chain: asking again while one runs returns it.
CREATE TABLE "chain_verification_runs" (
  "id" UUID NOT NULL,
  "establishment_id" UUID NOT NULL,
  "livemode" BOOLEAN NOT NULL,
  "status" TEXT NOT NULL,
  "checked" BIGINT NOT NULL DEFAULT 0,
  "total" BIGINT NOT NULL DEFAULT 0,
  "result" JSONB,
  "error" TEXT,
  "created_at" TIMESTAMPTZ(3) NOT NULL,
  "started_at" TIMESTAMPTZ(3),
  "finished_at" TIMESTAMPTZ(3),
  CONSTRAINT "chain_verification_runs_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "chain_verification_runs_status_check" CHECK ("status" IN ('queued', 'running', 'completed', 'failed')),
  CONSTRAINT "chain_verification_runs_establishment_fk" FOREIGN KEY ("establishment_id") REFERENCES "establishments"("id") ON DELETE CASCADE
);
CREATE UNIQUE INDEX "chain_verification_runs_active_key" ON "chain_verification_runs" ("establishment_id", "livemode")
  WHERE "status" IN ('queued', 'running');
-- Retention deletes finished runs by age.
CREATE INDEX "chain_verification_runs_finished_at_idx" ON "chain_verification_runs" ("finished_at");
