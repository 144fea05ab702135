/**
 * robots.txt (RFC 9309), pure: parse a file into the rules of the group that applies to our product
 * token (else `*`), and match a path against them: the longest matching rule wins, allow wins a tie,
 * `*` matches any run of characters and a trailing `$` anchors the end.
 */

/** One allow or disallow line. */
export interface RobotsRule {
  readonly allow: boolean
  readonly pattern: string
}

/** The rules that apply to us. */
export interface RobotsRules {
  readonly rules: ReadonlyArray<RobotsRule>
}

/** Everything allowed (no robots.txt, or one that could not be read). */
export const ALLOW_ALL: RobotsRules = { rules: [] }

/** The rules of the group for `token` (case-insensitive prefix match of the product token), else of `*`. */
export const parseRobots = (text: string, token: string): RobotsRules => {
  type Group = { agents: Array<string>; rules: Array<RobotsRule> }
  const groups: Array<Group> = []
  let current: Group | undefined
  let lastWasAgent = false
  for (const rawLine of text.split(/\r\n|\r|\n/)) {
    const line = rawLine.replace(/#.*$/, "").trim()
    const colon = line.indexOf(":")
    if (colon < 0) continue
    const key = line.slice(0, colon).trim().toLowerCase()
    const value = line.slice(colon + 1).trim()
    if (key === "user-agent") {
      if (!lastWasAgent || current === undefined) {
        current = { agents: [], rules: [] }
        groups.push(current)
      }
      current.agents.push(value.toLowerCase())
      lastWasAgent = true
      continue
    }
    lastWasAgent = false
    if ((key === "allow" || key === "disallow") && current !== undefined) {
      // An empty Disallow allows everything: it adds no rule.
      if (value === "") continue
      current.rules.push({ allow: key === "allow", pattern: value })
    }
  }
  const wanted = token.toLowerCase()
  const mine = groups.filter((group) => group.agents.some((agent) => agent !== "*" && wanted.startsWith(agent)))
  const chosen = mine.length > 0 ? mine : groups.filter((group) => group.agents.includes("*"))
  return { rules: chosen.flatMap((group) => group.rules) }
}

const escapeRegExp = (text: string) => text.replace(/[.+?^${}()|[\]\\]/g, "\\$&")

const matches = (pattern: string, path: string): boolean => {
  const anchored = pattern.endsWith("$")
  const body = anchored ? pattern.slice(0, -1) : pattern
  const regex = new RegExp(`^${body.split("*").map(escapeRegExp).join(".*")}${anchored ? "$" : ""}`)
  return regex.test(path)
}

/** The rule deciding `pathAndQuery` (the URL's path plus its query), or undefined when none matches (allowed). */
export const decidingRule = (rules: RobotsRules, pathAndQuery: string): RobotsRule | undefined => {
  let best: RobotsRule | undefined
  for (const rule of rules.rules) {
    if (!matches(rule.pattern, pathAndQuery)) continue
    if (
      best === undefined ||
      rule.pattern.length > best.pattern.length ||
      (rule.pattern.length === best.pattern.length && rule.allow)
    )
      best = rule
  }
  return best
}

/** Whether robots.txt lets us fetch `pathAndQuery`. */
export const robotsAllows = (rules: RobotsRules, pathAndQuery: string): boolean =>
  decidingRule(rules, pathAndQuery)?.allow ?? true
