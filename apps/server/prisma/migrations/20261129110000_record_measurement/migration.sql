-- How each record was measured (Delegated Decision (EU) 2019/1597, Annex III; ESRS E5-5's
-- measured vs estimated), whether the food was edible, and the packaging weighed with it and
-- left out. All nullable: records stored before keep their values (null: not said) and their hash.
ALTER TABLE "records"
  ADD COLUMN "measurement_method" TEXT,
  ADD COLUMN "scale_id" TEXT,
  ADD COLUMN "estimated" BOOLEAN,
  ADD COLUMN "edible" TEXT,
  ADD COLUMN "tare_kg" DECIMAL(12, 3),
  ADD CONSTRAINT "records_measurement_method_check"
    CHECK ("measurement_method" IN ('direct_weighing', 'counting', 'write_off', 'estimate', 'composition_analysis')),
  ADD CONSTRAINT "records_edible_check" CHECK ("edible" IN ('edible', 'inedible', 'mixed')),
  ADD CONSTRAINT "records_tare_kg_check" CHECK ("tare_kg" > 0),
  ADD CONSTRAINT "records_scale_id_check" CHECK ("scale_id" IS NULL OR "measurement_method" = 'direct_weighing');
