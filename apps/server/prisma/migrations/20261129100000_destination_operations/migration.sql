-- Each destination's operation under the Waste Framework Directive (2008/98/EC, annexes I and II),
-- which the ESRS E5-5 figures (modules/compliance/esrs.ts) group by:
--   not_waste  food kept for people (processed or donated), animal feed and by-products: not food
--              waste under Delegated Decision (EU) 2019/1597 and the WFD (art. 2.2, art. 5);
--   R3         composting or anaerobic digestion with the digestate used: recycling of organic substances;
--   R1         use principally as a fuel or other means to generate energy: other recovery;
--   D10        incineration on land;  D1  deposit into or onto land (landfill);  sewer  discharged to sewer.
-- The seeded destinations use not_waste, R3, R1 and D1; D10 and sewer are for destinations to come.
ALTER TABLE "destinations" ADD COLUMN "wfd_operation" TEXT;
UPDATE "destinations" SET "wfd_operation" = CASE "code"
  WHEN 'human_consumption' THEN 'not_waste'
  WHEN 'donation' THEN 'not_waste'
  WHEN 'animal_feed' THEN 'not_waste'
  WHEN 'industrial_byproducts' THEN 'not_waste'
  WHEN 'composting' THEN 'R3'
  WHEN 'energy_recovery' THEN 'R1'
  WHEN 'landfill' THEN 'D1'
END;
ALTER TABLE "destinations" ALTER COLUMN "wfd_operation" SET NOT NULL;
ALTER TABLE "destinations" ADD CONSTRAINT "destinations_wfd_operation_check"
  CHECK ("wfd_operation" IN ('not_waste', 'R3', 'R1', 'D10', 'D1', 'sewer'));
