-- Returns and refunds are stored as negative sale lines (modules/sales/returns.ts): a line's
-- quantity may be negative, never zero.
ALTER TABLE "sales" DROP CONSTRAINT "sales_quantity_check";
ALTER TABLE "sales" ADD CONSTRAINT "sales_quantity_check" CHECK ("quantity" <> 0);
