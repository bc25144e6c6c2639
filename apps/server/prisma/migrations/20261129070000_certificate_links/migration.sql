-- A social entity's link to sign the certificate of Ley 49/2002 art. 24 of one donor company's
-- gifts of one tax year (modules/donations/certificate-links.ts): a credential of the same kind as
-- a donation's signing link, of which only the token's SHA-256 is stored. It reads the tax pack as
-- its maker did (`only_establishment_id`: a single-establishment key's company; null: the
-- organisation). A new link for the same certificate replaces the last (`replaced_at`); the
-- signature uses it (`used_at`) and is kept here, the signed PDF in donation_certificates.
CREATE TABLE "certificate_links" (
  "id" UUID NOT NULL,
  "organization_id" UUID NOT NULL,
  "establishment_id" UUID NOT NULL,
  "livemode" BOOLEAN NOT NULL,
  "only_establishment_id" UUID,
  "entity_id" UUID NOT NULL,
  "year" INTEGER NOT NULL,
  "cif" TEXT NOT NULL,
  "token_hash" CHAR(64) NOT NULL,
  "created_at" TIMESTAMPTZ(3) NOT NULL,
  "expires_at" TIMESTAMPTZ(3) NOT NULL,
  "replaced_at" TIMESTAMPTZ(3),
  "used_at" TIMESTAMPTZ(3),
  "signer_name" TEXT,
  "signer_id_document" TEXT,
  "signer_role" TEXT,
  "place" TEXT,
  "signature_kind" TEXT,
  "signature_png" BYTEA,
  "signature_text" TEXT,
  "ip" TEXT,
  "user_agent" TEXT,
  "sha256" CHAR(64),
  CONSTRAINT "certificate_links_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "certificate_links_expiry_check" CHECK ("expires_at" > "created_at"),
  CONSTRAINT "certificate_links_year_check" CHECK ("year" BETWEEN 2000 AND 2100),
  CONSTRAINT "certificate_links_signed_check" CHECK (("used_at" IS NULL) = ("sha256" IS NULL)),
  CONSTRAINT "certificate_links_organization_fk" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE,
  CONSTRAINT "certificate_links_establishment_fk" FOREIGN KEY ("establishment_id") REFERENCES "establishments"("id") ON DELETE CASCADE,
  CONSTRAINT "certificate_links_entity_fk" FOREIGN KEY ("entity_id") REFERENCES "social_entities"("id") ON DELETE RESTRICT
);
CREATE UNIQUE INDEX "certificate_links_token_key" ON "certificate_links" ("token_hash");
CREATE INDEX "certificate_links_certificate_idx" ON "certificate_links" ("organization_id", "livemode", "year", "cif", "entity_id");

-- A stored certificate's id, kept when a new one replaces it: the subject of its entries in the
-- register's documents chain (modules/records/documents.ts).
ALTER TABLE "donation_certificates" ADD COLUMN "id" UUID NOT NULL DEFAULT gen_random_uuid();
CREATE UNIQUE INDEX "donation_certificates_id_key" ON "donation_certificates" ("id");
