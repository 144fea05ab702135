/** The Search port's options for a plain literal search of the whole workspace, for specs that drive the port directly. */
import type { GrepOptions } from "../../core/services/Search.ts"

export const literalGrep = (literal: string, overrides: Partial<GrepOptions> = {}): GrepOptions => ({
  base: "",
  includeIgnored: false,
  excludes: [],
  include: [],
  source: literal,
  flags: "",
  literal,
  context: 0,
  maxMatches: 10_000,
  maxLineChars: 200,
  maxFileBytes: 1_000_000,
  ...overrides
})
