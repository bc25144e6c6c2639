-- Sold-out signals (sales.recorded lines may say the product ran out that day): a day a product sold
-- out is censored demand, at least its sales, which the demand forecast reads as such
-- (modules/predict/model.ts). Kept on the line and on the day's total (true once any line says so).
ALTER TABLE "sales" ADD COLUMN "sold_out" BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE "sale_day_totals" ADD COLUMN "sold_out" BOOLEAN NOT NULL DEFAULT false;
