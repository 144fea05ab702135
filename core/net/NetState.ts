/**
 * The network state of one running host: the robots.txt cache (per origin) and whether content from
 * the web has been read since the host started (fetch, browser read), which the opt-in setting
 * stageEgressAfterUntrustedRead turns into a reason to stage the next web call.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { RobotsRules } from "./robots.ts"

/** How long a robots.txt answer is trusted, in milliseconds. */
export const ROBOTS_TTL_MS = 60 * 60 * 1000

export interface NetStateShape {
  /** The cached rules of an origin, if fetched within ROBOTS_TTL_MS of `now`. */
  readonly robots: (origin: string, now: number) => Effect.Effect<RobotsRules | undefined>
  readonly rememberRobots: (origin: string, rules: RobotsRules, now: number) => Effect.Effect<void>
  /** Records that web content reached the model (a fetch or a browser read); `what` names it. */
  readonly markUntrustedRead: (what: string) => Effect.Effect<void>
  /** The last untrusted read since the host started, if any. */
  readonly lastUntrustedRead: Effect.Effect<string | undefined>
}

/** The network state service; `NetState.layer` is one fresh state per runtime. */
export class NetState extends Context.Tag("agentic-workspace/NetState")<NetState, NetStateShape>() {
  static readonly make = (): NetStateShape => {
    const robots = new Map<string, { readonly rules: RobotsRules; readonly at: number }>()
    let untrusted: string | undefined
    return {
      robots: (origin, now) =>
        Effect.sync(() => {
          const entry = robots.get(origin)
          return entry !== undefined && now - entry.at < ROBOTS_TTL_MS ? entry.rules : undefined
        }),
      rememberRobots: (origin, rules, now) =>
        Effect.sync(() => {
          // Bounded: the oldest origin goes first.
          if (robots.size >= 500) robots.delete(robots.keys().next().value!)
          robots.set(origin, { rules, at: now })
        }),
      markUntrustedRead: (what) =>
        Effect.sync(() => {
          untrusted = what
        }),
      lastUntrustedRead: Effect.sync(() => untrusted)
    }
  }
  static readonly layer = Layer.sync(NetState, NetState.make)
}
