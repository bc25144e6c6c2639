-- Integrations: a Square seller account or an Odoo database connected to one establishment and
-- mode, each sending to a URL of its own (modules/integrations). Secrets at rest:
-- - token_hash / previous_token_hash: SHA-256 (hex) of an Odoo integration's URL token. The token
--   is shown once; only its hash is kept, as for API keys. After a rotation the previous token
--   keeps working until previous_token_expires_at.
-- - signature_key / previous_signature_key: a Square subscription's signature key, sealed with
--   the server's keys (secrets/cipher.ts) as webhook secrets are; the previous one is accepted
--   until previous_signature_key_expires_at.
-- - api_credential: what the server reads the vendor's API with (a Square access token, an Odoo
--   API key), sealed the same way. Never returned by the API.
-- failed_count: notifications whose orders or adjustments could not be read after every retry.
CREATE TABLE "integrations" (
    "id" UUID NOT NULL,
    "establishment_id" UUID NOT NULL,
    "livemode" BOOLEAN NOT NULL,
    "kind" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'active',
    "token_hash" TEXT,
    "token_hint" TEXT,
    "previous_token_hash" TEXT,
    "previous_token_expires_at" TIMESTAMPTZ(3),
    "signature_key" TEXT,
    "previous_signature_key" TEXT,
    "previous_signature_key_expires_at" TIMESTAMPTZ(3),
    "api_credential" TEXT,
    "settings" JSONB NOT NULL DEFAULT '{}',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revoked_at" TIMESTAMPTZ(3),
    "last_received_at" TIMESTAMPTZ(3),
    "last_error" TEXT,
    "last_error_at" TIMESTAMPTZ(3),
    "failed_count" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "integrations_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "integrations_kind_check" CHECK ("kind" IN ('square', 'odoo')),
    CONSTRAINT "integrations_status_check" CHECK ("status" IN ('active', 'revoked'))
);

CREATE UNIQUE INDEX "integrations_token_hash_key" ON "integrations"("token_hash");
CREATE UNIQUE INDEX "integrations_previous_token_hash_key" ON "integrations"("previous_token_hash");
CREATE INDEX "integrations_establishment_id_livemode_idx" ON "integrations"("establishment_id", "livemode");
-- One active integration of each vendor per establishment and mode: the records an Odoo database
-- or a Square account sends are deduplicated by their ids in that vendor, which two databases (or
-- two accounts) would share.
CREATE UNIQUE INDEX "integrations_one_active_per_kind" ON "integrations"("establishment_id", "livemode", "kind") WHERE "status" = 'active';

ALTER TABLE "integrations" ADD CONSTRAINT "integrations_establishment_id_fkey" FOREIGN KEY ("establishment_id") REFERENCES "establishments"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
