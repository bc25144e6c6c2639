-- Customers manage their catalogue (/api/v1/products, the dashboard's products page): a product
-- is deactivated rather than deleted, since sales name it. A deactivated product is not listed by
-- default nor forecast; its sales are kept and new ones naming it are still stored.
ALTER TABLE "products" ADD COLUMN "deactivated_at" TIMESTAMPTZ(3);
