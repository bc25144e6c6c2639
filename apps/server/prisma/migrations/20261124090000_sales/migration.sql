-- Sales from POS and ERP systems (inbound `sales.recorded`), the input of the demand forecast.
-- Kept apart from waste records: never hashed, never in the record chain. A line with an external
-- id is stored once per source (a resend is a duplicate).
CREATE TABLE "sales" (
  "id" UUID NOT NULL,
  "establishment_id" UUID NOT NULL,
  "livemode" BOOLEAN NOT NULL,
  "product_id" UUID NOT NULL,
  "source" TEXT NOT NULL,
  "external_ref" TEXT,
  "quantity" DECIMAL(12,3) NOT NULL,
  "unit" TEXT NOT NULL,
  "sold_at" TIMESTAMPTZ(3) NOT NULL,
  "day" DATE NOT NULL,
  "inbound_event_id" UUID,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT "sales_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "sales_quantity_check" CHECK ("quantity" > 0),
  CONSTRAINT "sales_unit_check" CHECK ("unit" IN ('unit', 'kg')),
  CONSTRAINT "sales_establishment_fk" FOREIGN KEY ("establishment_id") REFERENCES "establishments"("id") ON DELETE CASCADE,
  CONSTRAINT "sales_product_fk" FOREIGN KEY ("product_id") REFERENCES "products"("id") ON DELETE CASCADE
);
CREATE UNIQUE INDEX "sales_external_ref_key" ON "sales" ("establishment_id", "livemode", "source", "external_ref");
CREATE INDEX "sales_establishment_day_idx" ON "sales" ("establishment_id", "livemode", "day");
CREATE INDEX "sales_product_id_idx" ON "sales" ("product_id");

-- Daily sales per product (local day of the establishment when the sale was stored), kept in the
-- statement that stores the sales: the forecast reads a year of these, not every sale line.
CREATE TABLE "sale_day_totals" (
  "establishment_id" UUID NOT NULL,
  "livemode" BOOLEAN NOT NULL,
  "product_id" UUID NOT NULL,
  "day" DATE NOT NULL,
  "units" DECIMAL(14,3) NOT NULL DEFAULT 0,
  "kg" DECIMAL(14,3) NOT NULL DEFAULT 0,
  "lines" INTEGER NOT NULL DEFAULT 0,
  CONSTRAINT "sale_day_totals_pkey" PRIMARY KEY ("establishment_id", "livemode", "product_id", "day"),
  CONSTRAINT "sale_day_totals_establishment_fk" FOREIGN KEY ("establishment_id") REFERENCES "establishments"("id") ON DELETE CASCADE,
  CONSTRAINT "sale_day_totals_product_fk" FOREIGN KEY ("product_id") REFERENCES "products"("id") ON DELETE CASCADE
);
CREATE INDEX "sale_day_totals_establishment_day_idx" ON "sale_day_totals" ("establishment_id", "livemode", "day");
