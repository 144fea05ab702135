/**
 * The input schema a tool lists (MCP's tools/list inputSchema): one flat JSON Schema object for all of a
 * tool's actions, written for a model to read. Moved out of Tool.ts (issue 28 item 2); Tool.ts re-exports it.
 */
import * as JSONSchema from "effect/JSONSchema"
import type { ToolDefinition } from "./Tool.ts"

/** A JSON Schema object (what MCP's tools/list carries as inputSchema). */
export type JsonSchemaObject = {
  readonly type: "object"
  readonly properties: Record<string, unknown>
  readonly required: ReadonlyArray<string>
  readonly additionalProperties: boolean
}

/**
 * One flat object schema for all actions: `action` is an enum, every other field is optional at the
 * top level (each action's own required fields are listed in the field's description), because MCP
 * clients expect `type: "object"` at the root. The schema is written for a model to read: Effect's
 * internal annotations (`title: "maxLength(4096)"`, "a string at most 4096 character(s) long") are
 * dropped, a `$ref` keeps its sibling description and bounds, and a field whose meaning differs between
 * actions says what it means for each. Computed once per tool definition (its actions never change):
 * callers read it or copy it, never change it.
 */
export const toolInputSchema = (tool: ToolDefinition): JsonSchemaObject => {
  let schema = inputSchemas.get(tool)
  if (schema === undefined) {
    schema = makeInputSchema(tool)
    inputSchemas.set(tool, schema)
  }
  return schema
}

const inputSchemas = new WeakMap<ToolDefinition, JsonSchemaObject>()

/**
 * A node of a JSON Schema that Effect generated, as this module reads it: the keywords it looks at are
 * typed, every other keyword is kept as it came (`unknown`).
 */
interface SchemaNode {
  [keyword: string]: unknown
  properties?: Record<string, SchemaNode>
  items?: SchemaNode
  required?: ReadonlyArray<string>
  anyOf?: ReadonlyArray<SchemaNode>
  enum?: ReadonlyArray<unknown>
  $defs?: Record<string, unknown>
}

const isNode = (value: unknown): value is SchemaNode =>
  value !== null && typeof value === "object" && !Array.isArray(value)

const nodeOf = (json: unknown): SchemaNode => (isNode(json) ? json : {})

/** The JSON Schema of one action's Struct, its `$ref`s inlined. */
const jsonSchemaOf = (struct: ToolDefinition["actions"][string]): SchemaNode => {
  const json = nodeOf(JSONSchema.make(struct, { target: "jsonSchema7" }))
  return json.$defs === undefined ? json : (inlineRefs(json, json.$defs) as SchemaNode)
}

/**
 * An integer as en-US writes it ("1,048,576"), without Intl: the first `toLocaleString` of a process loads
 * ICU's number formatting, tens of milliseconds of start-up spent only to compare a description (issue 19).
 */
export const grouped = (n: number): string => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",")

const makeInputSchema = (tool: ToolDefinition): JsonSchemaObject => {
  const properties: Record<string, SchemaNode> = {}
  const requiredBy: Record<string, Array<string>> = {}
  const meanings: Record<string, Map<string, Array<string>>> = {}
  for (const [action, struct] of Object.entries(tool.actions)) {
    const resolved = forModel(jsonSchemaOf(struct)) as SchemaNode
    for (const [field, schema] of Object.entries(resolved.properties ?? {})) {
      const known = properties[field]
      if (known === undefined) properties[field] = schema
      else {
        // Bounds that differ between actions (inspect's limit) are left to the description, which states each.
        let kept = known
        for (const bound of ["minimum", "maximum", "minLength", "maxLength", "minItems", "maxItems"]) {
          if (kept[bound] !== schema[bound]) kept = omitKey(kept, bound)
        }
        properties[field] = kept
      }
      const meaning = typeof schema.description === "string" ? schema.description : ""
      meanings[field] ??= new Map()
      const byMeaning = meanings[field]
      byMeaning.set(meaning, [...(byMeaning.get(meaning) ?? []), action])
    }
    for (const field of resolved.required ?? []) requiredBy[field] = [...(requiredBy[field] ?? []), action]
  }
  const all = Object.keys(tool.actions).length
  for (const field of Object.keys(properties)) {
    const distinct = [...meanings[field]!.entries()].filter(([meaning]) => meaning !== "")
    const text =
      distinct.length <= 1
        ? (distinct[0]?.[0] ?? "")
        : distinct.map(([meaning, actions]) => `${actions.join(", ")}: ${meaning}`).join(" ")
    const notes: Array<string> = []
    // Which actions take a field is said by its per-action description where the meaning differs, and by
    // the INVALID_INPUT of a misplaced field ("belongs to ..."); listing it on every field doubled the schema.
    const required = requiredBy[field] ?? []
    const exempt = Object.keys(tool.actions).filter((action) => !required.includes(action))
    if (required.length > 0) {
      notes.push(
        required.length === all
          ? "required"
          : exempt.length < required.length
            ? `required except for ${exempt.join(", ")}`
            : `required for ${required.join(", ")}`
      )
    }
    const { description: _description, ...base } = properties[field]!
    const described = [text, notes.length === 0 ? "" : `(${notes.join("; ")})`].filter((part) => part !== "").join(" ")
    properties[field] = described === "" ? base : { ...base, description: described }
  }
  dropRepeatedItemFields(properties)
  if (tool.bare !== undefined) {
    const own = nodeOf(JSONSchema.make(tool.actions[tool.bare]!, { target: "jsonSchema7" })).required ?? []
    for (const field of Object.keys(properties)) {
      const { description, ...rest } = properties[field]!
      const plain = typeof description === "string" ? description.replace(/ ?\(required\)$/, "") : undefined
      properties[field] = plain === undefined || plain === "" ? rest : { ...rest, description: plain }
    }
    return { type: "object", properties, required: own, additionalProperties: false }
  }
  return {
    type: "object",
    properties: { action: { type: "string", enum: Object.keys(tool.actions) }, ...properties },
    required: ["action"],
    additionalProperties: false
  }
}

/**
 * An item schema nested in a field (tasks' items) that repeats top-level fields exactly names them in
 * its description only (said once); a nested field that differs keeps its own schema.
 */
const dropRepeatedItemFields = (properties: Record<string, SchemaNode>): void => {
  for (const schema of Object.values(properties)) {
    const nested = schema.items?.properties
    if (schema.items === undefined || nested === undefined) continue
    const kept: Record<string, SchemaNode> = {}
    for (const [name, child] of Object.entries(nested)) {
      const top = properties[name]
      const same =
        top !== undefined &&
        JSON.stringify(omitKey(child, "description")) === JSON.stringify(omitKey(top, "description"))
      if (!same) kept[name] = child
    }
    schema.items = { ...schema.items, properties: kept }
    if (Object.keys(kept).length === 0) delete schema.items.properties
  }
}

/** String and array bounds at or past these are not listed (the decoder still enforces them and names them). */
const LISTED_MAX_LENGTH = 80
const LISTED_MAX_ITEMS = 40

/** Effect's generated descriptions ("a string at most 80 character(s) long", "an integer"): internal, not for a model. */
const GENERATED_DESCRIPTION =
  /character\(s\)|item\(s\)|^an? (string|integer|number|array|non-negative|positive|negative|boolean)\b|^Expected /

/**
 * Rewrites a JSON Schema node for a model: no `title` (Effect puts its refinement names there), no
 * generated description, and an integer whose description does not state its bounds gets them.
 */
const forModel = (node: unknown): unknown => {
  if (Array.isArray(node)) return node.map(forModel)
  if (!isNode(node)) return node
  const out: SchemaNode = {}
  for (const [key, value] of Object.entries(node)) {
    if (key === "title") continue
    if (key === "description" && typeof value === "string" && GENERATED_DESCRIPTION.test(value)) continue
    out[key] =
      key === "properties"
        ? Object.fromEntries(Object.entries(value as object).map(([name, child]) => [name, forModel(child)]))
        : forModel(value)
  }
  if (Array.isArray(out["anyOf"])) {
    const flat = flattenTagged(out["anyOf"].filter(isNode))
    if (flat !== undefined) {
      const { anyOf: _anyOf, ...rest } = out
      return { ...flat, ...rest }
    }
  }
  if (out["type"] === "object" && out["additionalProperties"] === false) delete out["additionalProperties"]
  // An id's or a hash's pattern is in its description ("the tx_… id"); the decoder checks it and says so.
  delete out["pattern"]
  if (out["minLength"] === 1) delete out["minLength"]
  // Bounds no model comes near (a 4096-character path, 1000 globs) are checked by the decoder, not listed.
  if (typeof out["maxLength"] === "number" && (out["maxLength"] as number) >= LISTED_MAX_LENGTH) delete out["maxLength"]
  if (typeof out["maxItems"] === "number" && (out["maxItems"] as number) >= LISTED_MAX_ITEMS) delete out["maxItems"]
  if (out["type"] === "integer") {
    const min = out["minimum"] as number | undefined
    const max = out["maximum"] as number | undefined
    const description = typeof out["description"] === "string" ? (out["description"] as string) : ""
    const big = (n: number) => n >= Number.MAX_SAFE_INTEGER
    const range =
      min !== undefined && max !== undefined && !big(max)
        ? `${min}-${max}`
        : min !== undefined
          ? `at least ${min}`
          : max !== undefined
            ? `at most ${max}`
            : undefined
    const states = (n: number | undefined) =>
      n === undefined || big(n) || description.includes(String(n)) || description.includes(grouped(n))
    if (range !== undefined && !(states(min) && states(max)))
      out["description"] = description === "" ? `Integer, ${range}.` : `${description} (integer, ${range})`
    // The description now states the range: the bounds are not repeated as keywords.
    delete out["minimum"]
    delete out["maximum"]
  }
  return out
}

/**
 * A union of objects told apart by a literal `type` (the edit operations) as one object: `type` is the
 * enum of every tag, each field says which tags use it and what it means for each, and only `type` is
 * required at this level (each tag's own required fields are named). The decoder still checks each
 * member exactly; the listing is what a model reads, and a flat object reads in a fraction of the size.
 */
const flattenTagged = (members: ReadonlyArray<SchemaNode>): Record<string, unknown> | undefined => {
  const tagOf = (member: SchemaNode): string | undefined => {
    const tag = member.properties?.["type"]
    return member["type"] === "object" &&
      Array.isArray(tag?.enum) &&
      tag.enum.length === 1 &&
      typeof tag.enum[0] === "string"
      ? tag.enum[0]
      : undefined
  }
  const tags = members.map(tagOf)
  if (members.length < 2 || tags.some((tag) => tag === undefined)) return undefined
  const properties: Record<string, SchemaNode> = {}
  const meanings: Record<string, Map<string, Array<string>>> = {}
  const usedBy: Record<string, Array<string>> = {}
  const required = new Map<string, Array<string>>()
  members.forEach((member, index) => {
    const tag = tags[index]!
    const own = (member.required ?? []).filter((field) => field !== "type").join(", ")
    if (own !== "") required.set(own, [...(required.get(own) ?? []), tag])
    for (const [field, schema] of Object.entries(member.properties ?? {})) {
      if (field === "type") continue
      const { description, ...shape } = schema
      properties[field] ??= shape
      usedBy[field] = [...(usedBy[field] ?? []), tag]
      meanings[field] ??= new Map()
      const byMeaning = meanings[field]
      const meaning = typeof description === "string" ? description : ""
      byMeaning.set(meaning, [...(byMeaning.get(meaning) ?? []), tag])
    }
  })
  for (const field of Object.keys(properties)) {
    const distinct = [...meanings[field]!.entries()].filter(([meaning]) => meaning !== "")
    // One meaning for every tag that has the field: the "Required per type" line already says who takes it.
    const text =
      distinct.length === 1
        ? distinct[0]![0]
        : distinct.map(([meaning, users]) => `${users.join(", ")}: ${meaning}`).join(" ")
    if (text !== "") properties[field] = { ...properties[field], description: text }
  }
  return {
    type: "object",
    properties: { type: { type: "string", enum: tags }, ...properties },
    required: ["type"],
    description: `Required per type: ${[...required.entries()].map(([fields, users]) => `${users.join(", ")}: ${fields}`).join("; ")}.`
  }
}

const omitKey = (node: SchemaNode, key: string): SchemaNode => {
  const { [key]: _omitted, ...rest } = node
  return rest
}

const inlineRefs = (node: unknown, defs: Record<string, unknown>): unknown => {
  if (Array.isArray(node)) return node.map((item) => inlineRefs(item, defs))
  if (!isNode(node)) return node
  const { $ref, ...siblings } = node
  if (typeof $ref === "string" && $ref.startsWith("#/$defs/")) {
    // The siblings of a $ref (description, minimum, maximum of a refinement) refine the definition.
    const target = inlineRefs(defs[$ref.slice("#/$defs/".length)], defs) as SchemaNode
    return { ...target, ...(inlineRefs(siblings, defs) as SchemaNode) }
  }
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(node))
    if (key !== "$defs" && key !== "$schema") out[key] = inlineRefs(value, defs)
  return out
}
