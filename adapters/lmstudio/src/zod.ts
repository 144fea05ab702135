/**
 * JSON Schema (as the registry lists it) to zod 3, for the SDK's `tool()`. The zod side is kept loose
 * on purpose (types and enums, no lengths or ranges): LM Studio shows the model the JSON Schema it
 * extracts, and every bound is checked by the core, whose INVALID_INPUT envelope names the field.
 */
import { z, type ZodTypeAny } from "zod"

type Json = Record<string, any>

const describe = (schema: ZodTypeAny, node: Json): ZodTypeAny =>
  typeof node.description === "string" ? schema.describe(node.description) : schema

/** One JSON Schema node as zod 3. */
export const toZod = (node: Json | undefined): ZodTypeAny => {
  if (node === undefined || node === null || typeof node !== "object") return z.any()
  if (
    Array.isArray(node.enum) &&
    node.enum.length > 0 &&
    node.enum.every((value: unknown) => typeof value === "string")
  ) {
    return describe(z.enum(node.enum as [string, ...Array<string>]), node)
  }
  if (Array.isArray(node.anyOf) || Array.isArray(node.oneOf)) {
    const options = ((node.anyOf ?? node.oneOf) as Array<Json>).map(toZod)
    return describe(
      options.length === 1
        ? options[0]!
        : z.union(options as unknown as [ZodTypeAny, ZodTypeAny, ...Array<ZodTypeAny>]),
      node
    )
  }
  switch (node.type) {
    case "string":
      return describe(z.string(), node)
    case "integer":
      return describe(z.number().int(), node)
    case "number":
      return describe(z.number(), node)
    case "boolean":
      return describe(z.boolean(), node)
    case "array":
      return describe(z.array(toZod(node.items)), node)
    case "object": {
      const required = new Set<string>(node.required ?? [])
      const shape: Record<string, ZodTypeAny> = {}
      for (const [key, value] of Object.entries<Json>(node.properties ?? {})) {
        shape[key] = required.has(key) ? toZod(value) : toZod(value).optional()
      }
      return describe(z.object(shape).passthrough(), node)
    }
    default:
      return describe(z.any(), node)
  }
}

/** The top-level parameters record `tool()` takes: one zod schema per property. */
export const toZodParameters = (schema: Json): Record<string, ZodTypeAny> => {
  const required = new Set<string>(schema.required ?? [])
  const out: Record<string, ZodTypeAny> = {}
  for (const [key, value] of Object.entries<Json>(schema.properties ?? {}))
    out[key] = required.has(key) ? toZod(value) : toZod(value).optional()
  return out
}
