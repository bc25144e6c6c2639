-- Lines an integration received but could not store (a Square item or Odoo product no product
-- maps to, a custom-amount line, an order without its state), kept with the vendor's ids and the
-- reason until they are mapped to a product and replayed (modules/integrations/refused.ts).
CREATE TABLE "integration_refused_lines" (
    "id" UUID NOT NULL,
    "integration_id" UUID NOT NULL,
    "establishment_id" UUID NOT NULL,
    "livemode" BOOLEAN NOT NULL,
    "source" TEXT NOT NULL,
    "order_ref" TEXT,
    "line_ref" TEXT NOT NULL,
    "item_ref" TEXT,
    "item_name" TEXT,
    "reason" TEXT NOT NULL,
    "mappable" BOOLEAN NOT NULL DEFAULT false,
    "line" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "resolved_at" TIMESTAMPTZ(3),
    "product_id" UUID,

    CONSTRAINT "integration_refused_lines_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "integration_refused_lines_integration_id_fkey" FOREIGN KEY ("integration_id") REFERENCES "integrations"("id") ON DELETE CASCADE ON UPDATE CASCADE
);

CREATE UNIQUE INDEX "integration_refused_lines_line_key" ON "integration_refused_lines"("integration_id", "line_ref");
CREATE INDEX "integration_refused_lines_integration_idx" ON "integration_refused_lines"("integration_id", "resolved_at", "created_at" DESC);
