-- What a product sells for, what one unit costs to make or buy, and what a leftover is still worth
-- (donated with a tax deduction, sold off cheaply, fed to animals), in euros per unit of the
-- product's sales (per unit when counted, per kg when sold by weight). All optional: with price
-- and unit_cost the demand advice aims at the newsvendor's critical ratio
-- (price − unit_cost) / (price − salvage_value) instead of a fixed service level
-- (modules/predict/demand.ts). The checks keep the ratio a share between 0 and 1.
ALTER TABLE "products"
  ADD COLUMN "price" DECIMAL(12,4),
  ADD COLUMN "unit_cost" DECIMAL(12,4),
  ADD COLUMN "salvage_value" DECIMAL(12,4),
  ADD CONSTRAINT "products_price_check" CHECK ("price" IS NULL OR "price" >= 0),
  ADD CONSTRAINT "products_unit_cost_check" CHECK ("unit_cost" IS NULL OR ("unit_cost" >= 0 AND ("price" IS NULL OR "unit_cost" <= "price"))),
  ADD CONSTRAINT "products_salvage_value_check" CHECK (
    "salvage_value" IS NULL OR ("salvage_value" >= 0 AND ("unit_cost" IS NULL OR "salvage_value" <= "unit_cost"))
  );
