-- The unique key of the day totals also carries the figures (INCLUDE kg, records), so a range of
-- one establishment's days — analytics over two years, the plan, the forecast, list totals — is
-- read from the index alone (an index-only scan) instead of one table page per row. Measured at
-- 10 million records (docs/scaling.md): two years by month of a 1,000,000-record establishment
-- from about 100 ms to about 35 ms. The constraint keeps its name: writes upsert ON CONFLICT ON
-- CONSTRAINT record_day_totals_key.
ALTER TABLE "record_day_totals"
  DROP CONSTRAINT "record_day_totals_key",
  ADD CONSTRAINT "record_day_totals_key" UNIQUE NULLS NOT DISTINCT
    ("establishment_id", "livemode", "day", "food_category", "destino_id", "causa_id", "waste_stage") INCLUDE ("kg", "records");
