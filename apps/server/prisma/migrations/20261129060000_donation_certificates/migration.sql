-- The certificates of Ley 49/2002 art. 24 that social entities signed for the donor: one PDF per
-- organisation, mode, tax year, donor company (its establishments' CIF, normalised: upper case,
-- without spaces, dots or hyphens) and entity, kept as uploaded with its SHA-256. A new upload
-- replaces the row; the audit log keeps the hash it replaced (modules/donations/certificates.ts).
-- `livemode` keeps a test key's rehearsal apart from the company's real certificates.
CREATE TABLE "donation_certificates" (
  "organization_id" UUID NOT NULL,
  "livemode" BOOLEAN NOT NULL,
  "year" INTEGER NOT NULL,
  "cif" TEXT NOT NULL,
  "entity_id" UUID NOT NULL,
  "content" BYTEA NOT NULL,
  "sha256" CHAR(64) NOT NULL,
  "size_bytes" INTEGER NOT NULL,
  "uploaded_at" TIMESTAMPTZ(3) NOT NULL,
  -- The pack reads a year's certificates of an organisation and mode: the key's first columns.
  CONSTRAINT "donation_certificates_pkey" PRIMARY KEY ("organization_id", "livemode", "year", "cif", "entity_id"),
  CONSTRAINT "donation_certificates_year_check" CHECK ("year" BETWEEN 2000 AND 2100),
  CONSTRAINT "donation_certificates_cif_check" CHECK ("cif" <> ''),
  CONSTRAINT "donation_certificates_sha256_check" CHECK ("sha256" ~ '^[0-9a-f]{64}$'),
  CONSTRAINT "donation_certificates_size_check" CHECK ("size_bytes" > 0),
  CONSTRAINT "donation_certificates_organization_fk" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE,
  CONSTRAINT "donation_certificates_entity_fk" FOREIGN KEY ("entity_id") REFERENCES "social_entities"("id") ON DELETE RESTRICT
);
CREATE INDEX "donation_certificates_entity_idx" ON "donation_certificates" ("entity_id");
