/**
 * How the core's tools and envelopes look on the MCP wire: a registry tool as a tools/list entry, an
 * envelope as a tools/call result (structuredContent, and as text its summary, any note of this host and
 * its data as JSON).
 */
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js"
import { ENVELOPE_JSON_SCHEMA, type Envelope } from "../../core/protocol/envelope.ts"
import type { ToolListing } from "../../core/registry.ts"
import { defined } from "../../core/text/defined.ts"

/** The MCP tool listing of one registry tool: schemas and annotations, every hint explicit. */
export const mcpTool = (listing: ToolListing): Tool => ({
  name: listing.name,
  description: listing.description,
  inputSchema: listing.inputSchema as unknown as Tool["inputSchema"],
  outputSchema: ENVELOPE_JSON_SCHEMA as unknown as Tool["outputSchema"],
  annotations: {
    readOnlyHint: listing.annotations.readOnlyHint,
    destructiveHint: listing.annotations.destructiveHint,
    openWorldHint: listing.annotations.openWorldHint,
    ...defined({ idempotentHint: listing.annotations.idempotentHint })
  }
})

/** The data part of the text content: the envelope's data (or a failure's details) as JSON, clipped to the budget. */
export const dataText = (envelope: Envelope, budget: number): string | undefined => {
  const payload = envelope.data ?? envelope.error?.details
  if (payload === undefined) return undefined
  const text = JSON.stringify(payload)
  return text.length <= budget
    ? text
    : `${text.slice(0, budget)}… (${text.length - budget} more characters in structuredContent and the artifacts)`
}

/**
 * The tools/call result of an envelope: the envelope as structuredContent; as text its summary, any
 * note of this host (an answered prompt), then the data as JSON within `budget` characters.
 */
export const callResult = (envelope: Envelope, extraText?: string, budget = 20_000): CallToolResult => {
  const data = dataText(envelope, budget)
  return {
    content: [
      { type: "text", text: envelope.summary },
      ...(extraText === undefined ? [] : [{ type: "text" as const, text: extraText }]),
      ...(data === undefined ? [] : [{ type: "text" as const, text: data }])
    ],
    structuredContent: envelope as unknown as Record<string, unknown>,
    isError: !envelope.ok
  }
}
