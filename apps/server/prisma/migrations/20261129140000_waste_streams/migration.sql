-- Destinations with their waste codes (Ley 7/2022 on waste; Decision 2014/955/EU, the European
-- List of Waste): per establishment, each destination that is waste is a stream handed over under
-- a LER code to an authorised waste manager, named with the NIMA of its site (10 digits). Not per
-- mode: the contract with the manager is a fact of the establishment, like its activity.
CREATE TABLE "waste_streams" (
  "establishment_id" UUID NOT NULL,
  "destination_id" UUID NOT NULL,
  "ler_code" TEXT NOT NULL,
  "manager_name" TEXT,
  "manager_nima" TEXT,
  "updated_at" TIMESTAMPTZ(3) NOT NULL,
  CONSTRAINT "waste_streams_pkey" PRIMARY KEY ("establishment_id", "destination_id"),
  CONSTRAINT "waste_streams_ler_code_check" CHECK ("ler_code" ~ '^[0-9]{2} [0-9]{2} [0-9]{2}$'),
  CONSTRAINT "waste_streams_manager_name_check" CHECK ("manager_name" IS NULL OR char_length("manager_name") BETWEEN 1 AND 200),
  CONSTRAINT "waste_streams_manager_nima_check" CHECK ("manager_nima" IS NULL OR "manager_nima" ~ '^[0-9]{10}$'),
  CONSTRAINT "waste_streams_establishment_fk" FOREIGN KEY ("establishment_id") REFERENCES "establishments"("id") ON DELETE CASCADE,
  CONSTRAINT "waste_streams_destination_fk" FOREIGN KEY ("destination_id") REFERENCES "destinations"("id")
);

-- The reference of the document a record's waste was handed over with (Spain's "documento de
-- identificación", Real Decreto 553/2020). Nullable: records stored before keep their hash.
ALTER TABLE "records" ADD COLUMN "transfer_document_ref" TEXT;
