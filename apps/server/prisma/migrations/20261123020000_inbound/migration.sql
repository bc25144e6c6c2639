-- CreateTable: events received from ERP/POS systems; (source, external_ref) makes a resend a duplicate
CREATE TABLE "inbound_events" (
    "id" UUID NOT NULL,
    "establishment_id" UUID NOT NULL,
    "livemode" BOOLEAN NOT NULL,
    "event" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "external_ref" TEXT,
    "record_id" UUID,
    "payload" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "inbound_events_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "inbound_events_establishment_id_livemode_source_external_ref_key" ON "inbound_events"("establishment_id", "livemode", "source", "external_ref");

-- AddForeignKey
ALTER TABLE "inbound_events" ADD CONSTRAINT "inbound_events_establishment_id_fkey" FOREIGN KEY ("establishment_id") REFERENCES "establishments"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
