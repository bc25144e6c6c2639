-- When a product ran out (a sales.recorded line's sold_out_at), on the line and on its day total
-- (the earliest of the day's lines): with the establishment's opening hours (its shifts), the
-- demand forecast reads a day that ran out early as more demand than one that ran out at closing
-- (modules/predict/demand.ts).
ALTER TABLE "sales" ADD COLUMN "sold_out_at" TIMESTAMPTZ(3);
ALTER TABLE "sale_day_totals" ADD COLUMN "sold_out_at" TIMESTAMPTZ(3);
