-- A record may name its product of the catalogue (`product_id`, checked at write against the
-- organisation's products), so that waste is matched to a product exactly rather than by
-- `product_name`, which stays free text for the contract. Part of the record's hash only when set
-- (modules/records/hash.ts): records stored before it hash as they always have.
ALTER TABLE "records" ADD COLUMN "product_id" UUID;
ALTER TABLE "records" ADD CONSTRAINT "records_product_fk" FOREIGN KEY ("product_id") REFERENCES "products"("id");
