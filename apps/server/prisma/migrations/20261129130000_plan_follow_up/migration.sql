-- Following the prevention plan up (Ley 1/2025 art. 6): who carries each measure out, by when, and
-- how far it has gone, per establishment and mode (a measure is named by its stable id,
-- modules/plan/measures.ts); and the staff training sessions held. Each generated plan version
-- keeps both as they stood that day.
CREATE TABLE "plan_measures" (
  "establishment_id" UUID NOT NULL,
  "livemode" BOOLEAN NOT NULL,
  "measure_id" TEXT NOT NULL,
  "owner" TEXT,
  "due_on" DATE,
  "status" TEXT NOT NULL DEFAULT 'planned',
  "note" TEXT,
  "updated_at" TIMESTAMPTZ(3) NOT NULL,
  CONSTRAINT "plan_measures_pkey" PRIMARY KEY ("establishment_id", "livemode", "measure_id"),
  CONSTRAINT "plan_measures_status_check" CHECK ("status" IN ('planned', 'in_progress', 'done', 'dropped')),
  CONSTRAINT "plan_measures_measure_id_check" CHECK ("measure_id" ~ '^[a-z_]+\.[a-z0-9_]+$'),
  CONSTRAINT "plan_measures_owner_check" CHECK ("owner" IS NULL OR char_length("owner") BETWEEN 1 AND 120),
  CONSTRAINT "plan_measures_note_check" CHECK ("note" IS NULL OR char_length("note") BETWEEN 1 AND 1000),
  CONSTRAINT "plan_measures_establishment_fk" FOREIGN KEY ("establishment_id") REFERENCES "establishments"("id") ON DELETE CASCADE
);

CREATE TABLE "training_sessions" (
  "id" UUID NOT NULL,
  "establishment_id" UUID NOT NULL,
  "livemode" BOOLEAN NOT NULL,
  "held_on" DATE NOT NULL,
  "topic" TEXT NOT NULL,
  "trainer" TEXT,
  "attendees" INTEGER NOT NULL,
  "attendee_names" TEXT,
  "created_at" TIMESTAMPTZ(3) NOT NULL,
  CONSTRAINT "training_sessions_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "training_sessions_topic_check" CHECK (char_length("topic") BETWEEN 1 AND 200),
  CONSTRAINT "training_sessions_trainer_check" CHECK ("trainer" IS NULL OR char_length("trainer") BETWEEN 1 AND 120),
  CONSTRAINT "training_sessions_attendees_check" CHECK ("attendees" BETWEEN 1 AND 10000),
  CONSTRAINT "training_sessions_attendee_names_check" CHECK ("attendee_names" IS NULL OR char_length("attendee_names") BETWEEN 1 AND 2000),
  CONSTRAINT "training_sessions_establishment_fk" FOREIGN KEY ("establishment_id") REFERENCES "establishments"("id") ON DELETE CASCADE
);
CREATE INDEX "training_sessions_held_on_idx" ON "training_sessions" ("establishment_id", "livemode", "held_on" DESC);
