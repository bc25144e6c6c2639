-- CreateTable: one delivery per (subscription, event, name sent); its attempts are below
CREATE TABLE "webhook_deliveries" (
    "id" UUID NOT NULL,
    "subscription_id" UUID NOT NULL,
    "event_id" UUID NOT NULL,
    "event_type" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3),
    "manual" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "completed_at" TIMESTAMPTZ(3),

    CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "webhook_deliveries_status_check" CHECK ("status" IN ('pending', 'succeeded', 'failed'))
);

-- CreateTable: every HTTP attempt of a delivery
CREATE TABLE "webhook_delivery_attempts" (
    "id" UUID NOT NULL,
    "delivery_id" UUID NOT NULL,
    "attempt" INTEGER NOT NULL,
    "attempted_at" TIMESTAMPTZ(3) NOT NULL,
    "response_status" INTEGER,
    "duration_ms" INTEGER NOT NULL,
    "error" TEXT,
    "next_attempt_at" TIMESTAMPTZ(3),

    CONSTRAINT "webhook_delivery_attempts_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "webhook_deliveries_subscription_id_event_id_event_type_key" ON "webhook_deliveries"("subscription_id", "event_id", "event_type");

-- CreateIndex
CREATE INDEX "webhook_deliveries_subscription_id_created_at_idx" ON "webhook_deliveries"("subscription_id", "created_at" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "webhook_delivery_attempts_delivery_id_attempt_key" ON "webhook_delivery_attempts"("delivery_id", "attempt");

-- AddForeignKey
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_subscription_id_fkey" FOREIGN KEY ("subscription_id") REFERENCES "webhook_subscriptions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_event_id_fkey" FOREIGN KEY ("event_id") REFERENCES "events"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_delivery_attempts" ADD CONSTRAINT "webhook_delivery_attempts_delivery_id_fkey" FOREIGN KEY ("delivery_id") REFERENCES "webhook_deliveries"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- CreateTable: one alert per establishment, category and local day
CREATE TABLE "alerts" (
    "id" UUID NOT NULL,
    "establishment_id" UUID NOT NULL,
    "livemode" BOOLEAN NOT NULL,
    "food_category" TEXT NOT NULL,
    "day" DATE NOT NULL,
    "total_kg" DECIMAL(12,3) NOT NULL,
    "baseline_kg" DECIMAL(12,3) NOT NULL,
    "threshold_kg" DECIMAL(12,3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "alerts_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "alerts_establishment_id_livemode_food_category_day_key" ON "alerts"("establishment_id", "livemode", "food_category", "day");

-- AddForeignKey
ALTER TABLE "alerts" ADD CONSTRAINT "alerts_establishment_id_fkey" FOREIGN KEY ("establishment_id") REFERENCES "establishments"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- Outbox fan-out. Every statement that inserts events (in whatever transaction: a record, a batch,
-- an inbound event, a session, a plan, an admin command) enqueues, in that same transaction, one
-- graphile-worker job naming the new events that an active subscription of their establishment and
-- mode listens to. A rolled-back write therefore enqueues nothing, and a committed one cannot lose
-- its job. `alert.spike_detected` also reaches subscribers of its alias `alert.triggered`.
-- graphile_worker.add_job is resolved when the trigger runs: the worker's schema is installed at
-- boot right after these migrations.
CREATE FUNCTION "merma_events_fanout"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  ids uuid[];
  est uuid;
  live boolean;
BEGIN
  SELECT array_agg(e.id ORDER BY e.created_at, e.id) INTO ids
  FROM new_events e
  WHERE EXISTS (
    SELECT 1 FROM webhook_subscriptions s
    WHERE s.establishment_id = e.establishment_id AND s.livemode = e.livemode AND s.status = 'active'
      AND (e.type = ANY (s.events) OR (e.type = 'alert.spike_detected' AND 'alert.triggered' = ANY (s.events)))
  );
  IF ids IS NOT NULL THEN
    PERFORM graphile_worker.add_job('webhooks.fanout', json_build_object('event_ids', ids));
  END IF;
  -- New or corrected records where someone listens to alerts: run the spike detector, at most once
  -- every 2 seconds per establishment and mode (the job key keeps the first run time).
  FOR est, live IN
    SELECT DISTINCT e.establishment_id, e.livemode FROM new_events e
    WHERE e.type IN ('record.created', 'record.updated') AND EXISTS (
      SELECT 1 FROM webhook_subscriptions s
      WHERE s.establishment_id = e.establishment_id AND s.livemode = e.livemode AND s.status = 'active'
        AND s.events && ARRAY['alert.spike_detected', 'alert.triggered'])
  LOOP
    PERFORM graphile_worker.add_job('alerts.detect', json_build_object('establishment_id', est, 'livemode', live),
      run_at := now() + interval '2 seconds', job_key := 'alerts:' || est::text || ':' || live::text,
      job_key_mode := 'preserve_run_at');
  END LOOP;
  RETURN NULL;
END
$$;

CREATE TRIGGER "events_fanout" AFTER INSERT ON "events"
  REFERENCING NEW TABLE AS new_events
  FOR EACH STATEMENT EXECUTE FUNCTION "merma_events_fanout"();

-- AlterTable: an organisation whose subscription was canceled (merma-admin org cancel)
ALTER TABLE "organizations" ADD COLUMN "canceled_at" TIMESTAMPTZ(3);

-- AlterTable: corrections (inbound waste.updated). A correction is a new record in the chain whose
-- hashed fields include `supersedes_id`; `superseded_by` on the corrected record is a lookup aid
-- derived from it (not part of any hash), so reads can skip versions that no longer count.
ALTER TABLE "records" ADD COLUMN "supersedes_id" UUID, ADD COLUMN "superseded_by" UUID;

-- CreateIndex: a record is corrected at most once (later corrections correct the correction)
CREATE UNIQUE INDEX "records_supersedes_id_key" ON "records"("supersedes_id") WHERE "supersedes_id" IS NOT NULL;

-- AlterTable: how a POS names a product (Square item variation id, Odoo product id) and, for
-- products counted in units, the weight of one unit — so POS connectors can turn losses into kg.
ALTER TABLE "products" ADD COLUMN "pos_ref" TEXT, ADD COLUMN "unit_weight_kg" DECIMAL(10,3);

-- CreateIndex
CREATE UNIQUE INDEX "products_organization_id_pos_ref_key" ON "products"("organization_id", "pos_ref");

-- Lists and totals read only the records that count (not superseded): the listing index covers
-- exactly those, so counts stay index-only scans.
DROP INDEX "records_establishment_id_livemode_created_at_id_idx";
CREATE INDEX "records_establishment_id_livemode_created_at_id_idx" ON "records"("establishment_id", "livemode", "created_at" DESC, "id" DESC) WHERE "superseded_by" IS NULL;
