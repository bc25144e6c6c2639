-- CreateTable
CREATE TABLE "organizations" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "plan" TEXT NOT NULL,
    "admin_email" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "organizations_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "organizations_plan_check" CHECK ("plan" IN ('basic', 'pro', 'enterprise', 'enterprise_multi'))
);

-- CreateTable
CREATE TABLE "establishments" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "cif" TEXT NOT NULL,
    "sector" TEXT NOT NULL,
    "timezone" TEXT NOT NULL DEFAULT 'Europe/Madrid',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "establishments_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "establishments_sector_check" CHECK ("sector" IN ('horeca', 'industrial', 'retail', 'distribucion', 'colectividades'))
);

-- CreateTable
CREATE TABLE "api_keys" (
    "id" UUID NOT NULL,
    "establishment_id" UUID NOT NULL,
    "livemode" BOOLEAN NOT NULL,
    "key_hash" CHAR(64) NOT NULL,
    "prefix" TEXT NOT NULL,
    "last4" TEXT NOT NULL,
    "permissions" TEXT[],
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "causes" (
    "id" UUID NOT NULL,
    "nombre" TEXT NOT NULL,
    "icono" TEXT NOT NULL,
    "activo" BOOLEAN NOT NULL DEFAULT true,
    "orden" INTEGER NOT NULL,

    CONSTRAINT "causes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "destinations" (
    "id" UUID NOT NULL,
    "code" TEXT NOT NULL,
    "nombre" TEXT NOT NULL,
    "orden" INTEGER NOT NULL,
    "es_recuperacion" BOOLEAN NOT NULL,

    CONSTRAINT "destinations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "products" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "food_category" TEXT NOT NULL,
    "ean" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "products_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "shifts" (
    "id" UUID NOT NULL,
    "establishment_id" UUID NOT NULL,
    "livemode" BOOLEAN NOT NULL,
    "name" TEXT NOT NULL,
    "start_time" CHAR(5) NOT NULL,
    "end_time" CHAR(5) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "shifts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sessions" (
    "id" UUID NOT NULL,
    "establishment_id" UUID NOT NULL,
    "livemode" BOOLEAN NOT NULL,
    "name" TEXT NOT NULL,
    "shift_id" UUID,
    "status" TEXT NOT NULL DEFAULT 'open',
    "started_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "completed_at" TIMESTAMPTZ(3),
    "record_count" INTEGER,
    "total_kg" DECIMAL(14,3),

    CONSTRAINT "sessions_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "sessions_status_check" CHECK ("status" IN ('open', 'completed'))
);

-- CreateTable
CREATE TABLE "records" (
    "id" UUID NOT NULL,
    "establishment_id" UUID NOT NULL,
    "livemode" BOOLEAN NOT NULL,
    "chain_seq" BIGINT NOT NULL,
    "food_category" TEXT NOT NULL,
    "weight_kg" DECIMAL(12,3) NOT NULL,
    "destino_id" UUID NOT NULL,
    "causa_id" UUID,
    "product_name" TEXT,
    "waste_stage" TEXT,
    "shift_id" UUID,
    "session_id" UUID,
    "notes" TEXT,
    "photo_url" TEXT,
    "source" TEXT NOT NULL DEFAULT 'api',
    "prev_hash" CHAR(64) NOT NULL,
    "record_hash" CHAR(64) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "records_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "records_weight_kg_check" CHECK ("weight_kg" > 0),
    CONSTRAINT "records_food_category_check" CHECK ("food_category" IN ('meat', 'fish', 'fruit_veg', 'dairy', 'bakery', 'prepared_meals', 'cereals', 'beverages', 'others')),
    CONSTRAINT "records_waste_stage_check" CHECK ("waste_stage" IN ('receiving', 'storage', 'preparation', 'service', 'post_service'))
);

-- CreateTable
CREATE TABLE "record_chain_heads" (
    "establishment_id" UUID NOT NULL,
    "livemode" BOOLEAN NOT NULL,
    "seq" BIGINT NOT NULL DEFAULT 0,
    "last_hash" CHAR(64) NOT NULL,
    "prev_hash" CHAR(64),

    CONSTRAINT "record_chain_heads_pkey" PRIMARY KEY ("establishment_id","livemode")
);

-- CreateTable
CREATE TABLE "idempotency_keys" (
    "id" UUID NOT NULL,
    "establishment_id" UUID NOT NULL,
    "livemode" BOOLEAN NOT NULL,
    "key" TEXT NOT NULL,
    "fingerprint" CHAR(64) NOT NULL,
    "status_code" INTEGER NOT NULL,
    "response_body" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "idempotency_keys_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "establishments_organization_id_idx" ON "establishments"("organization_id");

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_key_hash_key" ON "api_keys"("key_hash");

-- CreateIndex
CREATE INDEX "api_keys_establishment_id_idx" ON "api_keys"("establishment_id");

-- CreateIndex
CREATE UNIQUE INDEX "destinations_code_key" ON "destinations"("code");

-- CreateIndex
CREATE UNIQUE INDEX "products_organization_id_ean_key" ON "products"("organization_id", "ean");

-- CreateIndex
CREATE INDEX "shifts_establishment_id_livemode_idx" ON "shifts"("establishment_id", "livemode");

-- CreateIndex
CREATE UNIQUE INDEX "shifts_id_establishment_id_livemode_key" ON "shifts"("id", "establishment_id", "livemode");

-- CreateIndex
CREATE INDEX "sessions_establishment_id_livemode_started_at_idx" ON "sessions"("establishment_id", "livemode", "started_at" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "sessions_id_establishment_id_livemode_key" ON "sessions"("id", "establishment_id", "livemode");

-- CreateIndex
CREATE UNIQUE INDEX "records_establishment_id_livemode_chain_seq_key" ON "records"("establishment_id", "livemode", "chain_seq");

-- CreateIndex
CREATE INDEX "records_establishment_id_livemode_created_at_id_idx" ON "records"("establishment_id", "livemode", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "idempotency_keys_establishment_id_livemode_key_key" ON "idempotency_keys"("establishment_id", "livemode", "key");

-- CreateIndex
CREATE INDEX "idempotency_keys_created_at_idx" ON "idempotency_keys"("created_at");

-- AddForeignKey
ALTER TABLE "establishments" ADD CONSTRAINT "establishments_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_establishment_id_fkey" FOREIGN KEY ("establishment_id") REFERENCES "establishments"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "products" ADD CONSTRAINT "products_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "shifts" ADD CONSTRAINT "shifts_establishment_id_fkey" FOREIGN KEY ("establishment_id") REFERENCES "establishments"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_establishment_id_fkey" FOREIGN KEY ("establishment_id") REFERENCES "establishments"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey: a session's shift belongs to the same establishment and mode
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_shift_fkey" FOREIGN KEY ("shift_id", "establishment_id", "livemode") REFERENCES "shifts"("id", "establishment_id", "livemode") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "records" ADD CONSTRAINT "records_establishment_id_fkey" FOREIGN KEY ("establishment_id") REFERENCES "establishments"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "records" ADD CONSTRAINT "records_destino_id_fkey" FOREIGN KEY ("destino_id") REFERENCES "destinations"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "records" ADD CONSTRAINT "records_causa_id_fkey" FOREIGN KEY ("causa_id") REFERENCES "causes"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey: a record's shift and session belong to the record's establishment and mode
ALTER TABLE "records" ADD CONSTRAINT "records_shift_fkey" FOREIGN KEY ("shift_id", "establishment_id", "livemode") REFERENCES "shifts"("id", "establishment_id", "livemode") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "records" ADD CONSTRAINT "records_session_fkey" FOREIGN KEY ("session_id", "establishment_id", "livemode") REFERENCES "sessions"("id", "establishment_id", "livemode") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "record_chain_heads" ADD CONSTRAINT "record_chain_heads_establishment_id_fkey" FOREIGN KEY ("establishment_id") REFERENCES "establishments"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- Seed: destinations in the order of the food-waste hierarchy of Spain's Ley 1/2025 (art. 5):
-- prevention first, disposal last. Only disposal is not a recovery route.
INSERT INTO "destinations" ("id", "code", "nombre", "orden", "es_recuperacion") VALUES
    ('6e0879b0-91e3-4004-bef6-79b5dd18049b', 'human_consumption', 'Transformación para consumo humano', 1, true),
    ('6ccf7d29-f6d9-403d-a9b0-2f907f15477b', 'donation', 'Donación para consumo humano', 2, true),
    ('c780cb3f-4952-4d92-8452-ab822aef0640', 'animal_feed', 'Alimentación animal y fabricación de piensos', 3, true),
    ('e7ce2beb-4d0f-463b-928c-5227b90a2914', 'industrial_byproducts', 'Subproductos para otras industrias', 4, true),
    ('51a096c6-196d-41dd-a02a-968cbfa9803f', 'composting', 'Compostaje o digestato', 5, true),
    ('76662c15-f435-457d-899c-2ff5d118da82', 'energy_recovery', 'Valorización energética (biogás)', 6, true),
    ('261568e0-0830-4971-bb56-4a6153297696', 'landfill', 'Eliminación en vertedero', 7, false);

-- Seed: causes of waste (icono: Lucide icon names). The last one is retired and not listed.
INSERT INTO "causes" ("id", "nombre", "icono", "activo", "orden") VALUES
    ('38c24669-6e85-43c2-a75a-a6059295af65', 'Caducidad', 'calendar-x', true, 1),
    ('c6bd16d6-7ba3-41e0-9910-21c6732f07cc', 'Deterioro o mal estado', 'triangle-alert', true, 2),
    ('4b3a4a84-4d2d-41ea-a260-5a775cff02aa', 'Sobreproducción', 'chef-hat', true, 3),
    ('810cbdc3-7e9c-4e26-960e-a21784bc5b2e', 'Sobras de plato', 'utensils', true, 4),
    ('4b572cbf-dab0-420b-804f-4c0964ba9129', 'Daño en transporte o manipulación', 'package-x', true, 5),
    ('49bf08df-3a6a-4399-b449-4c6f1dbb27cb', 'Error de preparación', 'flame', true, 6),
    ('744272bd-33e5-414f-a904-2e9bca4923f9', 'Rotura de la cadena de frío', 'thermometer', true, 7),
    ('4f7ce62e-f26a-4b91-9898-05edc25dcd6b', 'Defecto de calidad o estético', 'scan-search', true, 8),
    ('d3762eeb-058b-40d3-830c-04a9b8ab86da', 'Devolución de cliente', 'undo-2', true, 9),
    ('3c726954-f608-4df6-88ec-a231ab2830c6', 'Otras causas', 'circle-help', true, 10),
    ('1ba04913-edd8-46b2-b05b-569f6bbc5150', 'Sin clasificar (retirada)', 'circle-off', false, 11);
