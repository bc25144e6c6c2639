/** Anything with zod's `safeParse`: the shapes of @merma/schema. */
type Checkable = { safeParse(value: unknown): { success: boolean } };

/**
 * A @mantine/form rule from a shape of @merma/schema: the same check the server makes, with the
 * page's own translated message.
 */
export function rule(schema: Checkable, message: string) {
  return (value: unknown) => (schema.safeParse(value).success ? null : message);
}
