-- When the waste happened, as the customer says (`occurred_at`), apart from when it was stored
-- (`created_at`, which keeps the chain order). Records stored before this migration happened when
-- they were stored. Lists, ranges and aggregates go by occurred_at, hence the index.
ALTER TABLE "records" ADD COLUMN "occurred_at" TIMESTAMPTZ(3);
UPDATE "records" SET "occurred_at" = "created_at";
ALTER TABLE "records" ALTER COLUMN "occurred_at" SET NOT NULL;
CREATE INDEX "records_establishment_id_livemode_occurred_at_id_idx"
  ON "records" ("establishment_id", "livemode", "occurred_at" DESC, "id" DESC);
