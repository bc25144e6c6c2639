-- Donations (Ley 1/2025 art. 6.4.b and 7): food an establishment offers to a social entity under
-- a donation agreement, line by line. Like records they are an establishment's data of one mode.
-- Every line is a record of the register (destination donation) from the moment it is offered:
-- `record_id` is that record; a refused line sent down the hierarchy points at the correction that
-- did it (`rerouted_record_id`), so the register, not this table, holds where the food went.
CREATE TABLE "donations" (
  "id" UUID NOT NULL,
  "establishment_id" UUID NOT NULL,
  "livemode" BOOLEAN NOT NULL,
  "agreement_id" UUID NOT NULL,
  "status" TEXT NOT NULL,
  "notes" TEXT,
  "offered_at" TIMESTAMPTZ(3) NOT NULL,
  "decided_at" TIMESTAMPTZ(3),
  "collected_at" TIMESTAMPTZ(3),
  "received_at" TIMESTAMPTZ(3),
  "updated_at" TIMESTAMPTZ(3) NOT NULL,
  CONSTRAINT "donations_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "donations_status_check" CHECK ("status" IN ('offered', 'accepted', 'refused', 'collected', 'received')),
  CONSTRAINT "donations_establishment_fk" FOREIGN KEY ("establishment_id") REFERENCES "establishments"("id") ON DELETE CASCADE,
  CONSTRAINT "donations_agreement_fk" FOREIGN KEY ("agreement_id") REFERENCES "donation_agreements"("id") ON DELETE RESTRICT
);
CREATE INDEX "donations_establishment_idx" ON "donations" ("establishment_id", "livemode", "offered_at" DESC, "id" DESC);
CREATE INDEX "donations_agreement_idx" ON "donations" ("agreement_id");

CREATE TABLE "donation_lines" (
  "id" UUID NOT NULL,
  "donation_id" UUID NOT NULL,
  "position" INTEGER NOT NULL,
  "product_id" UUID,
  "food_category" TEXT NOT NULL,
  "description" TEXT NOT NULL,
  "lot" TEXT,
  "best_before" DATE,
  "use_by" DATE,
  "quantity" DECIMAL(12,3) NOT NULL,
  "unit" TEXT NOT NULL,
  "net_kg" DECIMAL(12,3) NOT NULL,
  "storage" TEXT NOT NULL,
  "cooked" BOOLEAN NOT NULL,
  "book_value" DECIMAL(12,2),
  "market_value" DECIMAL(12,2),
  "allergens" TEXT[] NOT NULL DEFAULT '{}',
  "temperature_c" DECIMAL(4,1),
  "status" TEXT NOT NULL,
  "refusal_reason" TEXT,
  "record_id" UUID NOT NULL,
  "rerouted_record_id" UUID,
  "rerouted_at" TIMESTAMPTZ(3),
  CONSTRAINT "donation_lines_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "donation_lines_position_key" UNIQUE ("donation_id", "position"),
  CONSTRAINT "donation_lines_quantity_check" CHECK ("quantity" > 0 AND "net_kg" > 0),
  CONSTRAINT "donation_lines_values_check" CHECK (coalesce("book_value", 0) >= 0 AND coalesce("market_value", 0) >= 0),
  CONSTRAINT "donation_lines_unit_check" CHECK ("unit" IN ('kg', 'unit', 'l')),
  CONSTRAINT "donation_lines_storage_check" CHECK ("storage" IN ('ambient', 'chilled', 'frozen')),
  CONSTRAINT "donation_lines_status_check" CHECK ("status" IN ('offered', 'accepted', 'refused')),
  CONSTRAINT "donation_lines_refusal_check" CHECK (("status" = 'refused') = ("refusal_reason" IS NOT NULL)),
  CONSTRAINT "donation_lines_reroute_check" CHECK ("rerouted_record_id" IS NULL OR "status" = 'refused'),
  CONSTRAINT "donation_lines_donation_fk" FOREIGN KEY ("donation_id") REFERENCES "donations"("id") ON DELETE CASCADE,
  CONSTRAINT "donation_lines_record_fk" FOREIGN KEY ("record_id") REFERENCES "records"("id") ON DELETE RESTRICT,
  CONSTRAINT "donation_lines_rerouted_fk" FOREIGN KEY ("rerouted_record_id") REFERENCES "records"("id") ON DELETE RESTRICT
);
CREATE UNIQUE INDEX "donation_lines_record_key" ON "donation_lines" ("record_id");
