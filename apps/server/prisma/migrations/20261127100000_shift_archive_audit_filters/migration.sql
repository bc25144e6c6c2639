-- A shift can be archived: it stops being assigned to new records and leaves GET /api/v1/shifts,
-- while the records and sessions that name it keep their link (a record's shift_id is part of its
-- hash, so it is never rewritten). NULL: active.
ALTER TABLE "shifts" ADD COLUMN "archived_at" TIMESTAMPTZ(3);

-- The audit log's filters (modules/audit/service.ts) walk an index in the page's order
-- (created_at DESC, id DESC) for an action or an actor, instead of reading the organisation's
-- whole log and dropping what does not match.
CREATE INDEX "audit_events_organization_id_action_created_at_id_idx"
  ON "audit_events" ("organization_id", "action", "created_at" DESC, "id" DESC);
CREATE INDEX "audit_events_organization_id_actor_created_at_id_idx"
  ON "audit_events" ("organization_id", lower("actor_email"), "created_at" DESC, "id" DESC);
