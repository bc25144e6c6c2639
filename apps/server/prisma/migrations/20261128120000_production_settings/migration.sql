-- The production advice's settings of an establishment, per mode as its opening calendar is: the
-- service level (the share of days the advice covers for a product without prices, before the
-- adjustment for its waste). No row: the default, 0.85. modules/predict/settings.ts reads and
-- writes it with SQL; modules/predict/demand.ts reads it for the advice.
CREATE TABLE "production_settings" (
  "establishment_id" UUID NOT NULL,
  "livemode" BOOLEAN NOT NULL,
  "service_level" NUMERIC(3, 2) NOT NULL,
  "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  CONSTRAINT "production_settings_pkey" PRIMARY KEY ("establishment_id", "livemode"),
  CONSTRAINT "production_settings_service_level_check" CHECK ("service_level" BETWEEN 0.5 AND 0.99),
  CONSTRAINT "production_settings_establishment_fk" FOREIGN KEY ("establishment_id") REFERENCES "establishments"("id") ON DELETE CASCADE
);
