-- What "am I obliged?" (modules/compliance) rests on. Per organisation: its size, for the
-- microenterprise test (staff headcount in annual work units, annual turnover and balance sheet
-- total in euros). Per establishment: its activity (a NACE Rev. 2 class, which gives its stage of
-- the food supply chain as Delegated Decision (EU) 2019/1597 names them) and its floor area in
-- square metres (the sales area open to the public, for the 1,300 m² rule). NULL until someone
-- says; the answer then says what is missing.
ALTER TABLE "organizations" ADD COLUMN "headcount" INTEGER;
ALTER TABLE "organizations" ADD COLUMN "annual_turnover_eur" DECIMAL(16, 2);
ALTER TABLE "organizations" ADD COLUMN "balance_sheet_eur" DECIMAL(16, 2);
ALTER TABLE "organizations" ADD CONSTRAINT "organizations_size_check"
  CHECK ((headcount IS NULL OR headcount >= 0) AND (annual_turnover_eur IS NULL OR annual_turnover_eur >= 0)
    AND (balance_sheet_eur IS NULL OR balance_sheet_eur >= 0));

ALTER TABLE "establishments" ADD COLUMN "nace_code" TEXT;
ALTER TABLE "establishments" ADD COLUMN "floor_area_m2" DECIMAL(10, 2);
ALTER TABLE "establishments" ADD CONSTRAINT "establishments_nace_code_check" CHECK (nace_code IS NULL OR nace_code ~ '^[0-9]{2}\.[0-9]{1,2}$');
ALTER TABLE "establishments" ADD CONSTRAINT "establishments_floor_area_check" CHECK (floor_area_m2 IS NULL OR floor_area_m2 >= 0);
