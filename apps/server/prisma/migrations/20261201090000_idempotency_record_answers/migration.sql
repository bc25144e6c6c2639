-- A record written under an Idempotency-Key (POST /records, a station's record) claims the key in
-- the record's own statement, one round trip (http/idempotency.ts, `KeyClaim`). Its answer is not
-- stored: the row names the record it wrote, and a replay answers that record, read from its row
-- (records never change after they are written). `response_body` stays empty on such rows.
-- No foreign key: a record outlives the key's 24 hours, and both go with their establishment.
ALTER TABLE "idempotency_keys" ADD COLUMN "record_id" UUID;
