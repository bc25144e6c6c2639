-- The demand forecast's answers kept for the requests that ask for them again (modules/predict/
-- stored.ts): per establishment, mode and horizon, the answer without filters, computed by the
-- evening job (modules/predict/evening.ts) or by the first request that found none valid. It is
-- served while it is what a computation would give: same local day and time zone, the clock on the
-- same side of the day's close, and no input written since — the inputs' version below and the
-- record chain's length (record_chain_heads.seq) unchanged.
CREATE TABLE "demand_forecasts" (
  "establishment_id" UUID NOT NULL,
  "livemode" BOOLEAN NOT NULL,
  "horizon" SMALLINT NOT NULL,
  -- The establishment's local day the answer was computed on, in this time zone.
  "today" DATE NOT NULL,
  "timezone" TEXT NOT NULL,
  -- The end of the establishment's last shift (HH:MM; none with no shift or an overnight one): from
  -- then on a computation counts today's sales, so the answer holds on the side of it it was
  -- computed on.
  "day_closes_at" CHAR(5),
  -- What the inputs were when they were read: demand_forecast_inputs.version and the chain's seq.
  "inputs_version" BIGINT NOT NULL,
  "records_seq" BIGINT NOT NULL,
  -- The answer as served (@merma/schema's DemandPrediction); json, not jsonb: stored and read back
  -- as text, never queried inside.
  "answer" JSON NOT NULL,
  "computed_at" TIMESTAMPTZ(3) NOT NULL,
  CONSTRAINT "demand_forecasts_pkey" PRIMARY KEY ("establishment_id", "livemode", "horizon"),
  CONSTRAINT "demand_forecasts_horizon_check" CHECK ("horizon" BETWEEN 1 AND 28),
  CONSTRAINT "demand_forecasts_establishment_fk" FOREIGN KEY ("establishment_id") REFERENCES "establishments"("id") ON DELETE CASCADE
);

-- A version per establishment and mode, one more at every statement that writes what the demand
-- forecast reads: sales (sale_day_totals), shifts, the opening calendar, the production settings,
-- deleted records (the chain's length counts the others), and products (every establishment of
-- the organisation, both modes). Bumped by triggers rather than by each writer, so no writer —
-- API, dashboard, integrations, merma-admin, retention — can forget it. Statement triggers: a batch
-- of 500 sale lines bumps once. The row lock it takes is held to the writer's commit, so two
-- writers of one establishment's inputs commit one after the other (records, the busiest writer,
-- are not counted here: they already serialise on their chain head).
CREATE TABLE "demand_forecast_inputs" (
  "establishment_id" UUID NOT NULL,
  "livemode" BOOLEAN NOT NULL,
  "version" BIGINT NOT NULL,
  CONSTRAINT "demand_forecast_inputs_pkey" PRIMARY KEY ("establishment_id", "livemode"),
  CONSTRAINT "demand_forecast_inputs_establishment_fk" FOREIGN KEY ("establishment_id") REFERENCES "establishments"("id") ON DELETE CASCADE
);

-- The establishments and modes a statement wrote (new_rows, old_rows: its transition tables), in
-- one order so that two statements never wait for each other's rows crosswise. Establishments
-- being deleted (a cascade) are not visible any more and are left out.
CREATE FUNCTION "merma_demand_inputs_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO "demand_forecast_inputs" ("establishment_id", "livemode", "version")
    SELECT DISTINCT n."establishment_id", n."livemode", 1 FROM new_rows n JOIN "establishments" e ON e."id" = n."establishment_id"
    ORDER BY 1, 2
    ON CONFLICT ("establishment_id", "livemode") DO UPDATE SET "version" = "demand_forecast_inputs"."version" + 1;
  ELSIF TG_OP = 'UPDATE' THEN
    INSERT INTO "demand_forecast_inputs" ("establishment_id", "livemode", "version")
    SELECT c."establishment_id", c."livemode", 1
    FROM (SELECT "establishment_id", "livemode" FROM new_rows UNION SELECT "establishment_id", "livemode" FROM old_rows) c
    JOIN "establishments" e ON e."id" = c."establishment_id"
    ORDER BY 1, 2
    ON CONFLICT ("establishment_id", "livemode") DO UPDATE SET "version" = "demand_forecast_inputs"."version" + 1;
  ELSE
    INSERT INTO "demand_forecast_inputs" ("establishment_id", "livemode", "version")
    SELECT DISTINCT o."establishment_id", o."livemode", 1 FROM old_rows o JOIN "establishments" e ON e."id" = o."establishment_id"
    ORDER BY 1, 2
    ON CONFLICT ("establishment_id", "livemode") DO UPDATE SET "version" = "demand_forecast_inputs"."version" + 1;
  END IF;
  RETURN NULL;
END
$$;

-- Products belong to the organisation: a change moves every establishment's forecast, in both modes.
CREATE FUNCTION "merma_demand_products_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  orgs UUID[];
BEGIN
  IF TG_OP = 'INSERT' THEN
    SELECT array_agg(DISTINCT "organization_id") INTO orgs FROM new_rows;
  ELSIF TG_OP = 'UPDATE' THEN
    SELECT array_agg(DISTINCT c."organization_id") INTO orgs
    FROM (SELECT "organization_id" FROM new_rows UNION SELECT "organization_id" FROM old_rows) c;
  ELSE
    SELECT array_agg(DISTINCT "organization_id") INTO orgs FROM old_rows;
  END IF;
  INSERT INTO "demand_forecast_inputs" ("establishment_id", "livemode", "version")
  SELECT e."id", m."livemode", 1
  FROM "establishments" e CROSS JOIN (VALUES (false), (true)) AS m("livemode")
  WHERE e."organization_id" = ANY(orgs)
  ORDER BY 1, 2
  ON CONFLICT ("establishment_id", "livemode") DO UPDATE SET "version" = "demand_forecast_inputs"."version" + 1;
  RETURN NULL;
END
$$;

-- Transition tables allow one event per trigger: three per table (records: deletes only).
CREATE TRIGGER "sale_day_totals_demand_insert" AFTER INSERT ON "sale_day_totals" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "merma_demand_inputs_changed"();
CREATE TRIGGER "sale_day_totals_demand_update" AFTER UPDATE ON "sale_day_totals" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "merma_demand_inputs_changed"();
CREATE TRIGGER "sale_day_totals_demand_delete" AFTER DELETE ON "sale_day_totals" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "merma_demand_inputs_changed"();
CREATE TRIGGER "shifts_demand_insert" AFTER INSERT ON "shifts" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "merma_demand_inputs_changed"();
CREATE TRIGGER "shifts_demand_update" AFTER UPDATE ON "shifts" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "merma_demand_inputs_changed"();
CREATE TRIGGER "shifts_demand_delete" AFTER DELETE ON "shifts" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "merma_demand_inputs_changed"();
CREATE TRIGGER "closures_demand_insert" AFTER INSERT ON "closures" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "merma_demand_inputs_changed"();
CREATE TRIGGER "closures_demand_update" AFTER UPDATE ON "closures" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "merma_demand_inputs_changed"();
CREATE TRIGGER "closures_demand_delete" AFTER DELETE ON "closures" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "merma_demand_inputs_changed"();
CREATE TRIGGER "weekly_closed_days_demand_insert" AFTER INSERT ON "weekly_closed_days" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "merma_demand_inputs_changed"();
CREATE TRIGGER "weekly_closed_days_demand_update" AFTER UPDATE ON "weekly_closed_days" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "merma_demand_inputs_changed"();
CREATE TRIGGER "weekly_closed_days_demand_delete" AFTER DELETE ON "weekly_closed_days" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "merma_demand_inputs_changed"();
CREATE TRIGGER "production_settings_demand_insert" AFTER INSERT ON "production_settings" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "merma_demand_inputs_changed"();
CREATE TRIGGER "production_settings_demand_update" AFTER UPDATE ON "production_settings" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "merma_demand_inputs_changed"();
CREATE TRIGGER "production_settings_demand_delete" AFTER DELETE ON "production_settings" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "merma_demand_inputs_changed"();
CREATE TRIGGER "products_demand_insert" AFTER INSERT ON "products" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "merma_demand_products_changed"();
CREATE TRIGGER "products_demand_update" AFTER UPDATE ON "products" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "merma_demand_products_changed"();
CREATE TRIGGER "products_demand_delete" AFTER DELETE ON "products" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "merma_demand_products_changed"();
CREATE TRIGGER "records_demand_delete" AFTER DELETE ON "records" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "merma_demand_inputs_changed"();
