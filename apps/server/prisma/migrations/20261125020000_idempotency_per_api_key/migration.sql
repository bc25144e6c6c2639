-- An Idempotency-Key answer belongs to the API key that made the request: it is stored under
-- (establishment, mode, API key, Idempotency-Key), so another key of the same establishment that
-- sends the same Idempotency-Key runs its own request instead of receiving this key's answer (a
-- webhook secret among them). From now on the server also stores the answers encrypted.
--
-- The answers stored before this migration name no API key and are stored in clear, webhook
-- secrets included. No key can be matched to them safely, and they would only expire within 24
-- hours, so they are deleted here. A client that retries, across the upgrade, a POST answered
-- just before it runs that request again, exactly as after the 24-hour window.
--
-- A server of the previous version still running during a rolling upgrade names the old unique
-- index in its ON CONFLICT, which no longer exists: its POSTs with an Idempotency-Key fail (500,
-- nothing written) until it is replaced; retried with the same key, they succeed on a new server.
-- The table is locked first, so that no row written by such a server between the DELETE and the
-- new NOT NULL column can make the migration fail.
LOCK TABLE "idempotency_keys" IN ACCESS EXCLUSIVE MODE;
DELETE FROM "idempotency_keys";

ALTER TABLE "idempotency_keys" ADD COLUMN "api_key_id" UUID NOT NULL;

DROP INDEX "idempotency_keys_establishment_id_livemode_key_key";
CREATE UNIQUE INDEX "idempotency_keys_establishment_id_livemode_api_key_id_key_key"
  ON "idempotency_keys"("establishment_id", "livemode", "api_key_id", "key");
