-- The social entity's signing link (a credential of its own: modules/tenancy/callers.ts) and the
-- handover note it signs. Only the token's SHA-256 is stored. A donation has at most one usable
-- link: a new one replaces the last (`replaced_at`). A link is used once (`used_at`), by the
-- signature, and then still opens the signed note until it expires.
CREATE TABLE "donation_links" (
  "id" UUID NOT NULL,
  "donation_id" UUID NOT NULL,
  "establishment_id" UUID NOT NULL,
  "livemode" BOOLEAN NOT NULL,
  "token_hash" CHAR(64) NOT NULL,
  "created_at" TIMESTAMPTZ(3) NOT NULL,
  "expires_at" TIMESTAMPTZ(3) NOT NULL,
  "replaced_at" TIMESTAMPTZ(3),
  "used_at" TIMESTAMPTZ(3),
  CONSTRAINT "donation_links_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "donation_links_expiry_check" CHECK ("expires_at" > "created_at"),
  CONSTRAINT "donation_links_donation_fk" FOREIGN KEY ("donation_id") REFERENCES "donations"("id") ON DELETE CASCADE,
  CONSTRAINT "donation_links_establishment_fk" FOREIGN KEY ("establishment_id") REFERENCES "establishments"("id") ON DELETE CASCADE
);
CREATE UNIQUE INDEX "donation_links_token_key" ON "donation_links" ("token_hash");
CREATE INDEX "donation_links_donation_idx" ON "donation_links" ("donation_id");

-- The signed handover note: who signed, how, from where, and the PDF rendered then, with its
-- SHA-256. One per donation.
CREATE TABLE "donation_notes" (
  "donation_id" UUID NOT NULL,
  "link_id" UUID NOT NULL,
  "signer_name" TEXT NOT NULL,
  "signer_id_document" TEXT NOT NULL,
  "signature_kind" TEXT NOT NULL,
  "signature_png" BYTEA,
  "signature_text" TEXT,
  "signed_at" TIMESTAMPTZ(3) NOT NULL,
  "ip" TEXT NOT NULL,
  "user_agent" TEXT,
  "pdf" BYTEA NOT NULL,
  "sha256" CHAR(64) NOT NULL,
  CONSTRAINT "donation_notes_pkey" PRIMARY KEY ("donation_id"),
  CONSTRAINT "donation_notes_signature_check" CHECK (
    ("signature_kind" = 'drawn' AND "signature_png" IS NOT NULL) OR ("signature_kind" = 'typed' AND "signature_text" IS NOT NULL)),
  CONSTRAINT "donation_notes_sha256_check" CHECK ("sha256" ~ '^[0-9a-f]{64}$'),
  CONSTRAINT "donation_notes_donation_fk" FOREIGN KEY ("donation_id") REFERENCES "donations"("id") ON DELETE CASCADE,
  CONSTRAINT "donation_notes_link_fk" FOREIGN KEY ("link_id") REFERENCES "donation_links"("id") ON DELETE RESTRICT
);
