-- Retires the `webhooks.fanout` jobs left in the queue by the trigger that outbox dispatch
-- replaced (20261123050000_dispatch), so that the worker no longer needs a task for them.
--
-- Those jobs' events were marked dispatched when the dispatch migration ran; they are marked
-- waiting again, and the jobs removed, so the dispatchers of this version pick the events up like
-- any other. Dispatching an event twice creates nothing twice (a delivery is unique per
-- subscription, event and name). A job a worker of the previous version is running right now is
-- locked and kept (`complete_jobs` leaves locked jobs): that worker finishes it.
--
-- The job payloads are read from graphile-worker's own table (`_private_jobs`; its public `jobs`
-- view leaves payloads out), as installed by graphile-worker 0.18, the version the server has
-- shipped with since its first migration.
--
-- On a new database the queue's schema does not exist yet (the server installs it right after
-- these migrations): there is nothing to retire.
DO $$
BEGIN
  IF to_regclass('graphile_worker._private_jobs') IS NOT NULL THEN
    CREATE TEMPORARY TABLE retired ON COMMIT DROP AS
      SELECT j.id, j.payload FROM graphile_worker._private_jobs j
      JOIN graphile_worker._private_tasks t ON t.id = j.task_id
      WHERE t.identifier = 'webhooks.fanout' AND j.locked_at IS NULL;
    UPDATE "events" SET "dispatched_at" = NULL
    WHERE "id" IN (SELECT (jsonb_array_elements_text(r.payload::jsonb -> 'event_ids'))::uuid FROM retired r);
    PERFORM graphile_worker.complete_jobs(ARRAY(SELECT r.id FROM retired r));
  END IF;
END
$$;
