-- Why a record went to a lower step of the hierarchy (Ley 1/2025 art. 5.2) than one its
-- establishment uses for the same food category: a reason from a short list and a note. Nullable:
-- records stored before keep their values and their hash.
ALTER TABLE "records"
  ADD COLUMN "hierarchy_reason" TEXT,
  ADD COLUMN "hierarchy_note" TEXT,
  ADD CONSTRAINT "records_hierarchy_reason_check"
    CHECK ("hierarchy_reason" IN ('unfit_for_people', 'no_taker', 'too_little', 'legal_restriction', 'cost_or_logistics', 'other'));
