-- The containers a kitchen weighs food in (a named bucket, a tray), each with its empty weight:
-- the station subtracts it from the scale's reading, so the register holds the food's net weight
-- (packaging is not food waste). Per establishment, not per mode: the buckets are physical.
CREATE TABLE "tare_presets" (
  "id" UUID NOT NULL,
  "establishment_id" UUID NOT NULL,
  "name" TEXT NOT NULL,
  "tare_kg" DECIMAL(8, 3) NOT NULL,
  "created_at" TIMESTAMPTZ(3) NOT NULL,
  CONSTRAINT "tare_presets_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "tare_presets_name_check" CHECK (char_length("name") BETWEEN 1 AND 60),
  CONSTRAINT "tare_presets_tare_kg_check" CHECK ("tare_kg" > 0 AND "tare_kg" <= 100),
  CONSTRAINT "tare_presets_establishment_fk" FOREIGN KEY ("establishment_id") REFERENCES "establishments"("id") ON DELETE CASCADE
);
CREATE UNIQUE INDEX "tare_presets_name_key" ON "tare_presets" ("establishment_id", lower("name"));
