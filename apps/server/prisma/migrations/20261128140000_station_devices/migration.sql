-- Kitchen stations (docs/decisions/0007-the-kitchen-station.md): a tablet paired to one
-- establishment and mode. An owner or admin starts a pairing (a one-time code, kept as its
-- SHA-256, valid until pairing_expires_at); the tablet redeems it once for a long random token,
-- kept as its SHA-256 like an API key's. modules/stations/service.ts reads and writes it.
CREATE TABLE "station_devices" (
  "id" UUID NOT NULL,
  "establishment_id" UUID NOT NULL,
  "livemode" BOOLEAN NOT NULL,
  "name" TEXT NOT NULL,
  "pairing_code_hash" CHAR(64),
  "pairing_expires_at" TIMESTAMPTZ(3),
  "token_hash" CHAR(64),
  "created_by" UUID,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "paired_at" TIMESTAMPTZ(3),
  "last_used_at" TIMESTAMPTZ(3),
  "revoked_at" TIMESTAMPTZ(3),
  CONSTRAINT "station_devices_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "station_devices_name_check" CHECK (length("name") BETWEEN 1 AND 60),
  -- Waiting to be paired (a code, no token) or paired (a token, no code): never both.
  CONSTRAINT "station_devices_state_check" CHECK (("pairing_code_hash" IS NULL) <> ("token_hash" IS NULL) OR "revoked_at" IS NOT NULL),
  CONSTRAINT "station_devices_establishment_fk" FOREIGN KEY ("establishment_id") REFERENCES "establishments"("id") ON DELETE CASCADE,
  CONSTRAINT "station_devices_created_by_fk" FOREIGN KEY ("created_by") REFERENCES "users"("id") ON DELETE SET NULL
);
CREATE UNIQUE INDEX "station_devices_token_hash_key" ON "station_devices" ("token_hash");
CREATE UNIQUE INDEX "station_devices_pairing_code_hash_key" ON "station_devices" ("pairing_code_hash");
CREATE INDEX "station_devices_establishment_idx" ON "station_devices" ("establishment_id", "livemode");
