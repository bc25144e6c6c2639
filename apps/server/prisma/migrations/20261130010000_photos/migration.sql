-- Photos of the waste (a record's evidence, taken at the bin or sent by an integration): the bytes
-- live in object storage (an S3-compatible bucket, or files under DATA_DIR), this row says whose
-- they are and where. Content-addressed per organisation and mode: the same bytes sent again are
-- the same photo, so a retried upload stores nothing twice.
CREATE TABLE "photos" (
  "id" UUID NOT NULL,
  "organization_id" UUID NOT NULL,
  "livemode" BOOLEAN NOT NULL,
  "content_type" TEXT NOT NULL,
  "size_bytes" INTEGER NOT NULL,
  "sha256" TEXT NOT NULL,
  -- Where the bytes are: 'file' (under DATA_DIR/photos) or 's3' (the configured bucket), and the
  -- object's key there.
  "storage" TEXT NOT NULL,
  "storage_key" TEXT NOT NULL,
  "created_at" TIMESTAMPTZ(3) NOT NULL,
  CONSTRAINT "photos_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "photos_content_type_check" CHECK ("content_type" IN ('image/jpeg', 'image/png', 'image/webp')),
  CONSTRAINT "photos_size_check" CHECK ("size_bytes" > 0),
  CONSTRAINT "photos_storage_check" CHECK ("storage" IN ('file', 's3')),
  CONSTRAINT "photos_organization_fk" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE
);
CREATE UNIQUE INDEX "photos_content_key" ON "photos" ("organization_id", "livemode", "sha256");
