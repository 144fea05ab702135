/**
 * The URL rule of the egress policy, pure: what may be requested at all (http/https, at most 8 KB, no
 * credentials, no refused IP literal) and the normal form an approval is bound to.
 *
 * @example
 *   checkUrl("HTTPS://Example.COM:443/a#top", { allowPrivateNetwork: false })
 *   // { ok: true, url: "https://example.com/a", host: "example.com" }
 */
import { type AddressClass, type AddressPolicy, checkAddress, isIpLiteral } from "./address.ts"

/** The longest URL a call may give (and a redirect may lead to), in characters. */
export const MAX_URL_CHARS = 8192

/** Why a URL is refused: `input` for what the model typed (INVALID_INPUT), the rest EGRESS_DENIED. */
export type UrlRefusalReason = "invalid" | "scheme" | "length" | "credentials" | "address"

/** The verdict on one URL. */
export type UrlVerdict =
  | { readonly ok: true; readonly url: string; readonly host: string; readonly origin: string }
  | {
      readonly ok: false
      readonly reason: UrlRefusalReason
      readonly message: string
      readonly address?: string
      readonly addressClass?: AddressClass
    }

/**
 * The normal form of an http(s) URL, which is what an approval binds: the WHATWG serialisation
 * (scheme and host lower-cased, IDN hosts in punycode, default port and dot segments removed, percent
 * escapes normalised) without the fragment, which never reaches the server. Idempotent.
 * Undefined when `raw` is not a URL.
 */
export const normalizeUrl = (raw: string): string | undefined => {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return undefined
  }
  url.hash = ""
  // The serialisation is re-parsed once: WHATWG serialisation is a fixed point from the second round on.
  try {
    const again = new URL(url.href)
    again.hash = ""
    return again.href
  } catch {
    return undefined
  }
}

/** The host of a URL without IPv6 brackets. */
export const bareHost = (url: URL): string => (url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname)

/**
 * The URL rule: a parseable URL of at most MAX_URL_CHARS characters, scheme http or https, no user
 * name or password (they would be sent to the host), and a host that, when it is an IP literal,
 * passes `checkAddress`. Names are checked after DNS, on the address connected, by the host's layer.
 */
export const checkUrl = (raw: string, policy: AddressPolicy): UrlVerdict => {
  if (raw.length > MAX_URL_CHARS) {
    return {
      ok: false,
      reason: "length",
      message: `The URL is ${raw.length} characters; at most ${MAX_URL_CHARS} are allowed.`
    }
  }
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return {
      ok: false,
      reason: "invalid",
      message: `"${raw.slice(0, 200)}" is not an absolute URL; give one like https://example.com/page.`
    }
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return {
      ok: false,
      reason: "scheme",
      message: `The scheme ${url.protocol} is refused: only http: and https: URLs leave this machine (never file:, data:, javascript: or others).`
    }
  }
  if (url.username !== "" || url.password !== "") {
    return {
      ok: false,
      reason: "credentials",
      message: "The URL carries a user name or password, which would be sent to the host; remove them."
    }
  }
  const normalized = normalizeUrl(raw)
  if (normalized === undefined)
    return { ok: false, reason: "invalid", message: `"${raw.slice(0, 200)}" is not a valid URL.` }
  if (normalized.length > MAX_URL_CHARS) {
    return {
      ok: false,
      reason: "length",
      message: `The URL is ${normalized.length} characters once normalised; at most ${MAX_URL_CHARS} are allowed.`
    }
  }
  const host = bareHost(url)
  if (isIpLiteral(host)) {
    const verdict = checkAddress(host, policy)
    if (!verdict.allowed)
      return { ok: false, reason: "address", message: verdict.message, address: host, addressClass: verdict.class }
  }
  return { ok: true, url: normalized, host, origin: url.origin }
}
