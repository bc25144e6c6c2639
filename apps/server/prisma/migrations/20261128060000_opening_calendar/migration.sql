-- The opening calendar of an establishment, per mode as its shifts are: the weekdays it is closed
-- every week, and closures (holidays, a winter break, works) as ranges of local days, both ends
-- included. The demand forecast leaves closed days out of its fit, advises nothing for them and
-- flags the first days after a closure (modules/predict/demand.ts); modules/opening/service.ts
-- reads and writes these tables.
CREATE TABLE "weekly_closed_days" (
  "establishment_id" UUID NOT NULL,
  "livemode" BOOLEAN NOT NULL,
  -- ISO weekday: 1 Monday … 7 Sunday.
  "weekday" SMALLINT NOT NULL,
  CONSTRAINT "weekly_closed_days_pkey" PRIMARY KEY ("establishment_id", "livemode", "weekday"),
  CONSTRAINT "weekly_closed_days_weekday_check" CHECK ("weekday" BETWEEN 1 AND 7),
  CONSTRAINT "weekly_closed_days_establishment_fk" FOREIGN KEY ("establishment_id") REFERENCES "establishments"("id") ON DELETE CASCADE
);

CREATE TABLE "closures" (
  "id" UUID NOT NULL,
  "establishment_id" UUID NOT NULL,
  "livemode" BOOLEAN NOT NULL,
  "starts_on" DATE NOT NULL,
  "ends_on" DATE NOT NULL,
  "reason" TEXT,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  CONSTRAINT "closures_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "closures_range_check" CHECK ("ends_on" >= "starts_on" AND "ends_on" - "starts_on" < 366),
  CONSTRAINT "closures_reason_check" CHECK ("reason" IS NULL OR length("reason") <= 200),
  CONSTRAINT "closures_establishment_fk" FOREIGN KEY ("establishment_id") REFERENCES "establishments"("id") ON DELETE CASCADE
);
CREATE INDEX "closures_establishment_idx" ON "closures" ("establishment_id", "livemode", "ends_on");
