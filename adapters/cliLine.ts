/**
 * The command line's words, parsed: the verb, its positionals, --root, --set and the other flags. It imports
 * nothing heavier than the settings' value reader, so the Node entry reads the verb before the rest loads.
 */
import { parseSettingValue } from "../core/settings/parseValue.ts"

/** A parsed command line. */
export interface ParsedLine {
  readonly verb: string | undefined
  readonly positional: ReadonlyArray<string>
  readonly root: string
  /** True when --root was given (else root is the current directory). */
  readonly rootGiven: boolean
  readonly settings: Record<string, unknown>
  readonly flags: Record<string, string | true>
  readonly errors: ReadonlyArray<string>
}

/** Flags that take a value (besides --root and --set). */
const VALUE_FLAGS = new Set([
  "--http",
  "--port",
  "--host",
  "--limit",
  "--offset",
  "--request-id",
  "--project",
  "--token",
  "--review-port",
  "--runs",
  "--seed",
  "--plant-fault"
])

/** Parses argv (without node and script): the verb, positionals, --root, --set, other flags. */
export const parseLine = (argv: ReadonlyArray<string>, cwd: string): ParsedLine => {
  const positional: Array<string> = []
  const settings: Record<string, unknown> = {}
  const flags: Record<string, string | true> = {}
  const errors: Array<string> = []
  let root = cwd
  let rootGiven = false
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index]!
    const [flag, inline] =
      arg.startsWith("--") && arg.includes("=")
        ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)]
        : [arg, undefined]
    const value = () => {
      if (inline !== undefined) return inline
      const next = argv[index + 1]
      if (next === undefined) {
        errors.push(`${flag} needs a value`)
        return undefined
      }
      index++
      return next
    }
    if (flag === "--root") {
      const given = value()
      if (given !== undefined) {
        root = given.startsWith("/") ? given : `${cwd.replace(/\/$/, "")}/${given}`
        rootGiven = true
      }
    } else if (flag === "--set") {
      const pair = value()
      if (pair === undefined) continue
      const at = pair.indexOf("=")
      if (at <= 0) errors.push(`--set takes key=value, got "${pair}"`)
      else settings[pair.slice(0, at)] = parseSettingValue(pair.slice(0, at), pair.slice(at + 1))
    } else if (VALUE_FLAGS.has(flag)) {
      const given = value()
      if (given !== undefined) flags[flag.slice(2)] = given
    } else if (arg.startsWith("--") && arg.length > 2) {
      flags[flag.slice(2)] = inline ?? true
    } else if (arg === "-h") {
      flags["help"] = true
    } else positional.push(arg)
  }
  return { verb: positional[0], positional: positional.slice(1), root, rootGiven, settings, flags, errors }
}
