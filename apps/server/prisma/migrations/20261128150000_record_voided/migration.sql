-- A record that voids the one it supersedes (the kitchen station's undo, docs/decisions/0007):
-- hashed only when true, so every stored record keeps its hash.
ALTER TABLE "records" ADD COLUMN "voided" BOOLEAN NOT NULL DEFAULT false;
