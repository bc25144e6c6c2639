-- Prevention plan versions (modules/plan/service.ts): each plan generated from now on is a version
-- entered into the register's documents chain (modules/records/documents.ts, kind
-- prevention_plan) with the SHA-256 of its stored content as PostgreSQL writes it
-- (content::text), and every checkpoint signs it. Plans stored before keep sha256 NULL and are not
-- in the chain. A stored plan is never changed nor deleted: the trigger refuses both, so a version
-- an inspector was shown stays the one the chain vouches for.
ALTER TABLE "prevention_plans" ADD COLUMN "sha256" CHAR(64);
-- The version's number within its establishment and mode, 1 for the first: the order of versions,
-- even for two generated in the same millisecond. Plans stored before are numbered here in the
-- order they were generated.
ALTER TABLE "prevention_plans" ADD COLUMN "version" INTEGER;
UPDATE "prevention_plans" p SET "version" = n.version
FROM (SELECT id, row_number() OVER (PARTITION BY establishment_id, livemode ORDER BY generated_at, id) AS version FROM "prevention_plans") n
WHERE n.id = p.id;
ALTER TABLE "prevention_plans" ALTER COLUMN "version" SET NOT NULL;
CREATE UNIQUE INDEX "prevention_plans_version_key" ON "prevention_plans" ("establishment_id", "livemode", "version");
ALTER TABLE "prevention_plans" ADD CONSTRAINT "prevention_plans_sha256_check" CHECK ("sha256" ~ '^[0-9a-f]{64}$');

CREATE FUNCTION prevention_plans_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'prevention plan % is a stored version: it cannot be changed or deleted', OLD.id USING ERRCODE = 'integrity_constraint_violation';
END;
$$;
CREATE TRIGGER prevention_plans_immutable BEFORE UPDATE OR DELETE ON "prevention_plans"
  FOR EACH ROW EXECUTE FUNCTION prevention_plans_immutable();
