/**
 * The egress policy every request of the toolkit passes: the settings it is made of, the User-Agent,
 * and the error a host's connector raises when the address it is about to connect to is refused.
 * Hosts (the Node undici connector, the Deno resolver), the fetch engine (`egress.ts`) and the
 * browser's loopback proxy share these values, so there is one policy and not one per caller.
 */
import type { Settings } from "../settings/settings.ts"
import type { AddressVerdict } from "./address.ts"

/** The User-Agent of every request the toolkit makes; robots.txt groups match its product token. */
export const USER_AGENT = "agentic-workspace/0.1 (LLM agent workspace toolkit; web research)"
/** The product token robots.txt groups are matched against. */
export const ROBOTS_TOKEN = "agentic-workspace"
/** Redirects followed by hand, each hop checked again. */
export const MAX_REDIRECTS = 5

/** The policy in force for one request. */
export interface EgressPolicy {
  readonly allowPrivateNetwork: boolean
  /** The response cap in bytes (setting maxFetchBytes). */
  readonly maxBytes: number
  /** The deadline of the whole request, redirects and body included (setting fetchTimeoutMs). */
  readonly timeoutMs: number
  readonly maxRedirects: number
  readonly userAgent: string
}

/** The policy the settings give. */
export const policyFromSettings = (settings: Settings): EgressPolicy => ({
  allowPrivateNetwork: settings.allowPrivateNetwork,
  maxBytes: settings.maxFetchBytes,
  timeoutMs: settings.fetchTimeoutMs,
  maxRedirects: MAX_REDIRECTS,
  userAgent: USER_AGENT
})

/** The name every EgressDeniedError carries, so the core recognises one inside a host's error chain. */
export const EGRESS_DENIED_NAME = "EgressDeniedError"

/**
 * Raised by a host's connector (or resolver) when the address it resolved or connected to is refused.
 * A plain Error so a host can throw it from a socket callback; the core finds it by `name` in the
 * `cause` chain of the transport error (`findEgressDenial`).
 */
export class EgressDeniedError extends Error {
  override readonly name = EGRESS_DENIED_NAME
  readonly hostname: string
  readonly verdict: Extract<AddressVerdict, { allowed: false }>
  constructor(hostname: string, verdict: Extract<AddressVerdict, { allowed: false }>) {
    super(`${hostname === verdict.address ? "" : `${hostname} resolves to ${verdict.address}: `}${verdict.message}`)
    this.hostname = hostname
    this.verdict = verdict
  }
}

/** The EgressDeniedError somewhere in an error's `cause` chain (or its AggregateError members), if any. */
export const findEgressDenial = (error: unknown, depth = 0): EgressDeniedError | undefined => {
  if (error === null || typeof error !== "object" || depth > 8) return undefined
  const candidate = error as { name?: unknown; cause?: unknown; errors?: unknown }
  if (candidate.name === EGRESS_DENIED_NAME && "verdict" in candidate) return error as EgressDeniedError
  if (Array.isArray(candidate.errors)) {
    for (const inner of candidate.errors) {
      const found = findEgressDenial(inner, depth + 1)
      if (found !== undefined) return found
    }
  }
  return findEgressDenial(candidate.cause, depth + 1)
}
