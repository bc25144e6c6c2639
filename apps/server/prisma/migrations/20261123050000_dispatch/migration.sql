-- Outbox dispatch by the workers instead of a trigger on the writer's transaction.
--
-- The trigger this replaces enqueued a graphile-worker job in every transaction that wrote an
-- event. Enqueuing notifies idle workers (pg_notify), and PostgreSQL serialises the commits of
-- notifying transactions on one lock, so under concurrent writes every POST /records of a
-- subscribed establishment waited for the others' commits (+67 % p50 with 16 writers). Now a write
-- only inserts its event row — in its own transaction, as before, so a rolled-back write leaves no
-- event and a committed one cannot lose it — and the workers dispatch: they claim events not yet
-- dispatched (FOR UPDATE SKIP LOCKED, so replicas never claim the same event), mark them and
-- create their deliveries and delivery jobs in one statement (jobs/webhooks.ts, dispatchEvents).
ALTER TABLE "events" ADD COLUMN "dispatched_at" TIMESTAMPTZ(3);

-- Events written before this migration were handed to the queue by the trigger.
UPDATE "events" SET "dispatched_at" = "created_at";

-- CreateIndex: the dispatchers' queue, holding only the events still waiting (usually none)
CREATE INDEX "events_undispatched_idx" ON "events"("created_at", "id") WHERE "dispatched_at" IS NULL;

DROP TRIGGER "events_fanout" ON "events";
DROP FUNCTION "merma_events_fanout"();
