-- The register's documents chain (modules/records/documents.ts): one chain per establishment and
-- mode of the documents the register vouches for — a donation's signed handover note, and what
-- comes after it — each entry holding the document's SHA-256, linked to the one before by
-- entry_hash = SHA-256(prev_hash || canonical JSON of the entry). The head keeps the length and
-- the last hash, so an entry removed at the end is found.
CREATE TABLE "register_documents" (
  "id" UUID NOT NULL,
  "establishment_id" UUID NOT NULL,
  "livemode" BOOLEAN NOT NULL,
  "seq" BIGINT NOT NULL,
  "kind" TEXT NOT NULL,
  "subject_id" UUID NOT NULL,
  "sha256" CHAR(64) NOT NULL,
  "created_at" TIMESTAMPTZ(3) NOT NULL,
  "prev_hash" CHAR(64) NOT NULL,
  "entry_hash" CHAR(64) NOT NULL,
  CONSTRAINT "register_documents_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "register_documents_kind_check" CHECK ("kind" ~ '^[a-z_]{1,40}$'),
  CONSTRAINT "register_documents_sha256_check" CHECK ("sha256" ~ '^[0-9a-f]{64}$'),
  CONSTRAINT "register_documents_establishment_fk" FOREIGN KEY ("establishment_id") REFERENCES "establishments"("id") ON DELETE CASCADE
);
CREATE UNIQUE INDEX "register_documents_seq_key" ON "register_documents" ("establishment_id", "livemode", "seq");
CREATE INDEX "register_documents_subject_idx" ON "register_documents" ("subject_id");

CREATE TABLE "register_document_heads" (
  "establishment_id" UUID NOT NULL,
  "livemode" BOOLEAN NOT NULL,
  "seq" BIGINT NOT NULL DEFAULT 0,
  "last_hash" CHAR(64) NOT NULL,
  "prev_hash" CHAR(64),
  CONSTRAINT "register_document_heads_pkey" PRIMARY KEY ("establishment_id", "livemode"),
  CONSTRAINT "register_document_heads_establishment_fk" FOREIGN KEY ("establishment_id") REFERENCES "establishments"("id") ON DELETE CASCADE
);

-- A checkpoint signs both heads: the records' (seq, head_hash) and the documents' (documents_seq,
-- documents_head_hash; 0 and null before the first document, when the message stays v1). A new
-- document with no new record is a new head, hence a new checkpoint: the key takes documents_seq.
ALTER TABLE "chain_checkpoints" ADD COLUMN "documents_seq" BIGINT NOT NULL DEFAULT 0;
ALTER TABLE "chain_checkpoints" ADD COLUMN "documents_head_hash" CHAR(64);
ALTER TABLE "chain_checkpoints" ADD CONSTRAINT "chain_checkpoints_documents_check"
  CHECK (("documents_seq" = 0) = ("documents_head_hash" IS NULL));
ALTER TABLE "chain_checkpoints" DROP CONSTRAINT "chain_checkpoints_pkey";
ALTER TABLE "chain_checkpoints" ADD CONSTRAINT "chain_checkpoints_pkey" PRIMARY KEY ("establishment_id", "livemode", "seq", "documents_seq");
