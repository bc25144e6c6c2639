-- A product's density in kg per litre (milk 1.03, oil 0.92), optional: a sale or an inventory
-- loss sent in a volume unit (litres, millilitres, fluid ounces…) is turned into kg with it
-- (kg = litres × density). Without it such a line is refused with a reason that says to set it.
ALTER TABLE "products"
  ADD COLUMN "density_kg_per_l" DECIMAL(8,4),
  ADD CONSTRAINT "products_density_kg_per_l_check" CHECK ("density_kg_per_l" IS NULL OR "density_kg_per_l" > 0);
