-- CreateTable: generated prevention plans (Ley 1/2025, art. 6)
CREATE TABLE "prevention_plans" (
    "id" UUID NOT NULL,
    "establishment_id" UUID NOT NULL,
    "livemode" BOOLEAN NOT NULL,
    "generated_at" TIMESTAMPTZ(3) NOT NULL,
    "content" JSONB NOT NULL,

    CONSTRAINT "prevention_plans_pkey" PRIMARY KEY ("id")
);

-- CreateTable: events, written in the same transaction as the change that causes them (outbox)
CREATE TABLE "events" (
    "id" UUID NOT NULL,
    "establishment_id" UUID NOT NULL,
    "livemode" BOOLEAN NOT NULL,
    "type" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "events_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "prevention_plans_establishment_id_livemode_generated_at_idx" ON "prevention_plans"("establishment_id", "livemode", "generated_at" DESC);

-- CreateIndex
CREATE INDEX "events_establishment_id_livemode_created_at_idx" ON "events"("establishment_id", "livemode", "created_at");

-- CreateIndex: records of a session
CREATE INDEX "records_session_id_idx" ON "records"("session_id") WHERE "session_id" IS NOT NULL;

-- AddForeignKey
ALTER TABLE "prevention_plans" ADD CONSTRAINT "prevention_plans_establishment_id_fkey" FOREIGN KEY ("establishment_id") REFERENCES "establishments"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "events" ADD CONSTRAINT "events_establishment_id_fkey" FOREIGN KEY ("establishment_id") REFERENCES "establishments"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
