-- The retention purge deletes sales by day (RETENTION_SALES_DAYS, modules/retention/purge.ts): an
-- index on the day alone finds the oldest lines and daily totals of every establishment without
-- reading the tables through.
CREATE INDEX "sales_day_idx" ON "sales" ("day");
CREATE INDEX "sale_day_totals_day_idx" ON "sale_day_totals" ("day");
