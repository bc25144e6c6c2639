-- Every change to what an API key's caller is made of (modules/tenancy/callers.ts, findKeyCaller:
-- the key's row, its establishment's, its organisation's plan and cancellation) is announced on
-- the channel `merma_callers`. Each replica listens (auth/caller-changes.ts) and empties its cache
-- of verified keys on every announcement, so a revocation, a permission or a plan change reaches
-- every replica as soon as it commits, whoever made it (the API, the dashboard, merma-admin, a
-- manual UPDATE). A column added to that caller must be added here too; the test
-- api-key-cache.test.ts changes each of them and waits for the announcement.
--
-- The payload says nothing of which row changed: these changes are rare, and a replica that drops
-- every verified key re-reads each on its next request (one indexed lookup). Within one
-- transaction PostgreSQL sends an identical payload once.
CREATE FUNCTION "merma_announce_caller_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('merma_callers', 'changed');
  RETURN NULL;
END
$$;

-- Updates of the columns the caller reads, when a value changes (a key's use, written to
-- last_used_at once a minute, announces nothing); deletions (an establishment's takes its keys) and
-- truncations, once per statement.
CREATE TRIGGER "api_keys_caller_update" AFTER UPDATE OF "key_hash", "establishment_id", "livemode", "permissions", "revoked_at" ON "api_keys"
  FOR EACH ROW WHEN ((OLD."key_hash", OLD."establishment_id", OLD."livemode", OLD."permissions", OLD."revoked_at")
    IS DISTINCT FROM (NEW."key_hash", NEW."establishment_id", NEW."livemode", NEW."permissions", NEW."revoked_at"))
  EXECUTE FUNCTION "merma_announce_caller_change"();
CREATE TRIGGER "api_keys_caller_delete" AFTER DELETE OR TRUNCATE ON "api_keys"
  FOR EACH STATEMENT EXECUTE FUNCTION "merma_announce_caller_change"();

CREATE TRIGGER "establishments_caller_update" AFTER UPDATE OF "organization_id", "name", "timezone", "sector" ON "establishments"
  FOR EACH ROW WHEN ((OLD."organization_id", OLD."name", OLD."timezone", OLD."sector")
    IS DISTINCT FROM (NEW."organization_id", NEW."name", NEW."timezone", NEW."sector"))
  EXECUTE FUNCTION "merma_announce_caller_change"();
CREATE TRIGGER "establishments_caller_delete" AFTER DELETE OR TRUNCATE ON "establishments"
  FOR EACH STATEMENT EXECUTE FUNCTION "merma_announce_caller_change"();

CREATE TRIGGER "organizations_caller_update" AFTER UPDATE OF "plan", "canceled_at" ON "organizations"
  FOR EACH ROW WHEN ((OLD."plan", OLD."canceled_at") IS DISTINCT FROM (NEW."plan", NEW."canceled_at"))
  EXECUTE FUNCTION "merma_announce_caller_change"();
CREATE TRIGGER "organizations_caller_delete" AFTER DELETE OR TRUNCATE ON "organizations"
  FOR EACH STATEMENT EXECUTE FUNCTION "merma_announce_caller_change"();
