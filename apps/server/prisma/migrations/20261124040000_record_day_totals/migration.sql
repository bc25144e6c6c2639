-- Daily totals of the records that count (not superseded), per establishment, mode, local day of
-- occurred_at and every dimension the analytics break down by. Kept in the same transaction as
-- each write (records/service.ts, inbound corrections), so long-range analytics and sector
-- benchmarking read a few rows per day instead of every record.
CREATE TABLE "record_day_totals" (
  "establishment_id" UUID NOT NULL,
  "livemode" BOOLEAN NOT NULL,
  "day" DATE NOT NULL,
  "food_category" TEXT NOT NULL,
  "destino_id" UUID NOT NULL,
  "causa_id" UUID,
  "waste_stage" TEXT,
  "kg" NUMERIC(16, 3) NOT NULL,
  "records" INTEGER NOT NULL,
  CONSTRAINT "record_day_totals_key" UNIQUE NULLS NOT DISTINCT
    ("establishment_id", "livemode", "day", "food_category", "destino_id", "causa_id", "waste_stage"),
  CONSTRAINT "record_day_totals_establishment_fk" FOREIGN KEY ("establishment_id") REFERENCES "establishments"("id") ON DELETE CASCADE
);
-- Sector benchmarking reads one mode's recent days across establishments.
CREATE INDEX "record_day_totals_livemode_day_idx" ON "record_day_totals" ("livemode", "day");

-- Records already stored, in their establishment's zone.
INSERT INTO "record_day_totals"
  ("establishment_id", "livemode", "day", "food_category", "destino_id", "causa_id", "waste_stage", "kg", "records")
SELECT r."establishment_id", r."livemode", (r."occurred_at" AT TIME ZONE e."timezone")::date, r."food_category",
  r."destino_id", r."causa_id", r."waste_stage", sum(r."weight_kg"), count(*)
FROM "records" r JOIN "establishments" e ON e."id" = r."establishment_id"
WHERE r."superseded_by" IS NULL
GROUP BY 1, 2, 3, 4, 5, 6, 7;
