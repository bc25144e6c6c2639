-- Donation agreements (Ley 1/2025, art. 6.4.b and art. 7): the social entities and food banks an
-- organisation donates to, its written agreements with them for one or more of its establishments,
-- and each agreement's signed document. They are the organisation's, like its products, and carry
-- no `livemode`: an agreement is a legal fact, not test or live data (modules/donations/service.ts).
CREATE TABLE "social_entities" (
  "id" UUID NOT NULL,
  "organization_id" UUID NOT NULL,
  "name" TEXT NOT NULL,
  "nif" TEXT NOT NULL,
  "address" TEXT NOT NULL,
  "legal_form" TEXT NOT NULL,
  "registry_number" TEXT,
  "ley49_art2_entity" BOOLEAN NOT NULL,
  "ley49_regime_opted_in" BOOLEAN NOT NULL,
  "food_bank_network" TEXT,
  "contacts" JSONB NOT NULL DEFAULT '[]',
  "cold_chain" BOOLEAN NOT NULL,
  "vehicle" BOOLEAN NOT NULL,
  "capacity_notes" TEXT,
  "created_at" TIMESTAMPTZ(3) NOT NULL,
  "updated_at" TIMESTAMPTZ(3) NOT NULL,
  "archived_at" TIMESTAMPTZ(3),
  CONSTRAINT "social_entities_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "social_entities_legal_form_check"
    CHECK ("legal_form" IN ('asociacion', 'fundacion', 'banco_de_alimentos', 'entidad_religiosa', 'otra')),
  CONSTRAINT "social_entities_organization_fk" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE
);
-- One entity per NIF in an organisation.
CREATE UNIQUE INDEX "social_entities_organization_nif_key" ON "social_entities" ("organization_id", "nif");

CREATE TABLE "donation_agreements" (
  "id" UUID NOT NULL,
  "organization_id" UUID NOT NULL,
  "entity_id" UUID NOT NULL,
  "valid_from" DATE NOT NULL,
  "valid_until" DATE NOT NULL,
  "renewal" TEXT NOT NULL,
  "accepted_food_categories" TEXT[] NOT NULL,
  "conditions" JSONB NOT NULL,
  "collection" JSONB NOT NULL,
  "storage_conditions" TEXT NOT NULL,
  "safety_responsibility_clause" TEXT NOT NULL,
  "refusal_procedure" TEXT NOT NULL,
  "created_at" TIMESTAMPTZ(3) NOT NULL,
  "updated_at" TIMESTAMPTZ(3) NOT NULL,
  -- The `valid_until` that `agreement.expiring` was last sent for: once per agreement and end date.
  "expiring_notified_for" DATE,
  CONSTRAINT "donation_agreements_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "donation_agreements_validity_check" CHECK ("valid_until" >= "valid_from"),
  CONSTRAINT "donation_agreements_renewal_check" CHECK ("renewal" IN ('none', 'automatic_yearly')),
  CONSTRAINT "donation_agreements_organization_fk" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE,
  CONSTRAINT "donation_agreements_entity_fk" FOREIGN KEY ("entity_id") REFERENCES "social_entities"("id") ON DELETE RESTRICT
);
CREATE INDEX "donation_agreements_organization_idx" ON "donation_agreements" ("organization_id", "valid_until");
CREATE INDEX "donation_agreements_entity_idx" ON "donation_agreements" ("entity_id");

CREATE TABLE "donation_agreement_establishments" (
  "agreement_id" UUID NOT NULL,
  "establishment_id" UUID NOT NULL,
  CONSTRAINT "donation_agreement_establishments_pkey" PRIMARY KEY ("agreement_id", "establishment_id"),
  CONSTRAINT "donation_agreement_establishments_agreement_fk"
    FOREIGN KEY ("agreement_id") REFERENCES "donation_agreements"("id") ON DELETE CASCADE,
  CONSTRAINT "donation_agreement_establishments_establishment_fk"
    FOREIGN KEY ("establishment_id") REFERENCES "establishments"("id") ON DELETE CASCADE
);
CREATE INDEX "donation_agreement_establishments_establishment_idx" ON "donation_agreement_establishments" ("establishment_id");

-- The signed agreement, as uploaded (a PDF of at most 10 MiB), and its SHA-256 in hexadecimal.
CREATE TABLE "donation_agreement_documents" (
  "agreement_id" UUID NOT NULL,
  "content" BYTEA NOT NULL,
  "sha256" TEXT NOT NULL,
  "size_bytes" INTEGER NOT NULL,
  "uploaded_at" TIMESTAMPTZ(3) NOT NULL,
  CONSTRAINT "donation_agreement_documents_pkey" PRIMARY KEY ("agreement_id"),
  CONSTRAINT "donation_agreement_documents_sha256_check" CHECK ("sha256" ~ '^[0-9a-f]{64}$'),
  CONSTRAINT "donation_agreement_documents_agreement_fk"
    FOREIGN KEY ("agreement_id") REFERENCES "donation_agreements"("id") ON DELETE CASCADE
);
