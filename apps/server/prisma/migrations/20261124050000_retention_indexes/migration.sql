-- The retention job (modules/retention/purge.ts) finds an event's deliveries and the oldest
-- inbound event ids without scanning the tables.
CREATE INDEX "webhook_deliveries_event_id_idx" ON "webhook_deliveries" ("event_id");
CREATE INDEX "inbound_events_created_at_idx" ON "inbound_events" ("created_at");
