-- Verified points of each record chain: (seq, head hash) as a verification found them, signed with
-- the service's Ed25519 key (secrets/signing.ts). A routine verify starts from the last one.
CREATE TABLE "chain_checkpoints" (
  "establishment_id" UUID NOT NULL,
  "livemode" BOOLEAN NOT NULL,
  "seq" BIGINT NOT NULL,
  "head_hash" CHAR(64) NOT NULL,
  "signed_at" TIMESTAMPTZ(3) NOT NULL,
  "key_id" TEXT NOT NULL,
  "signature" TEXT NOT NULL,
  CONSTRAINT "chain_checkpoints_pkey" PRIMARY KEY ("establishment_id", "livemode", "seq"),
  CONSTRAINT "chain_checkpoints_establishment_fk" FOREIGN KEY ("establishment_id") REFERENCES "establishments"("id") ON DELETE CASCADE
);
