/**
 * The egress policy as workspace_browser applies it, pure. It mirrors the shared policy the research
 * branch is writing in core/net/ (`checkAddress(address, policy)`, `checkUrl(raw, policy)`, the same
 * names and verdict shapes), so switching to core/net/ once it lands is an import change:
 * http and https only; private, loopback and link-local addresses refused unless allowPrivateNetwork;
 * cloud metadata always refused. The browser's loopback proxy calls `checkAddress` on the address it
 * is about to connect to (after DNS), so a name that resolves to a refused address is refused too.
 *
 * @example
 *   checkAddress("10.0.0.7", { allowPrivateNetwork: false }).allowed // false
 */

/** The policy's one switch. */
export interface AddressPolicy {
  readonly allowPrivateNetwork: boolean
}

/** The class of an address. */
export type AddressClass = "metadata" | "loopback" | "unspecified" | "link-local" | "private" | "reserved" | "public"

/** The verdict on one address. */
export type AddressVerdict =
  | { readonly allowed: true; readonly address: string; readonly class: AddressClass }
  | { readonly allowed: false; readonly address: string; readonly class: Exclude<AddressClass, "public">; readonly message: string }

const parseIpv4 = (text: string): [number, number, number, number] | undefined => {
  const parts = text.split(".")
  if (parts.length !== 4) return undefined
  const bytes = parts.map((part) => (/^(0|[1-9][0-9]{0,2})$/.test(part) ? Number(part) : Number.NaN))
  if (bytes.some((byte) => !Number.isInteger(byte) || byte > 255)) return undefined
  return bytes as [number, number, number, number]
}

const parseIpv6 = (input: string): ReadonlyArray<number> | undefined => {
  let text = input.startsWith("[") && input.endsWith("]") ? input.slice(1, -1) : input
  const zone = text.indexOf("%")
  if (zone >= 0) text = text.slice(0, zone)
  if (!text.includes(":")) return undefined
  const lastColon = text.lastIndexOf(":")
  const last = text.slice(lastColon + 1)
  if (last.includes(".")) {
    const v4 = parseIpv4(last)
    if (v4 === undefined) return undefined
    text = `${text.slice(0, lastColon + 1)}${((v4[0] << 8) | v4[1]).toString(16)}:${((v4[2] << 8) | v4[3]).toString(16)}`
  }
  const halves = text.split("::")
  if (halves.length > 2) return undefined
  const group = (part: string) => (part === "" ? [] : part.split(":"))
  const head = group(halves[0]!)
  const rest = halves.length === 2 ? group(halves[1]!) : []
  const parsed = [...head, ...rest].map((hex) => (/^[0-9a-fA-F]{1,4}$/.test(hex) ? Number.parseInt(hex, 16) : Number.NaN))
  if (parsed.some(Number.isNaN)) return undefined
  if (halves.length === 1) return parsed.length === 8 ? parsed : undefined
  const missing = 8 - head.length - rest.length
  if (missing < 1) return undefined
  return [...parsed.slice(0, head.length), ...Array.from({ length: missing }, () => 0), ...parsed.slice(head.length)]
}

const classifyIpv4 = ([a, b, c, d]: readonly [number, number, number, number]): AddressClass => {
  if (a === 169 && b === 254 && c === 169 && d === 254) return "metadata"
  if (a === 127) return "loopback"
  if (a === 0) return "unspecified"
  if (a === 169 && b === 254) return "link-local"
  if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127)) return "private"
  if ((a === 192 && b === 0 && c === 0) || (a === 198 && (b === 18 || b === 19)) || a >= 224) return "reserved"
  return "public"
}

const classifyIpv6 = (groups: ReadonlyArray<number>): AddressClass => {
  const g = (i: number) => groups[i]!
  const zeros = (from: number, to: number) => groups.slice(from, to).every((value) => value === 0)
  const embedded = (): [number, number, number, number] => [g(6) >> 8, g(6) & 0xff, g(7) >> 8, g(7) & 0xff]
  if (g(0) === 0xfd00 && g(1) === 0x0ec2 && zeros(2, 7) && g(7) === 0x254) return "metadata"
  if (zeros(0, 7) && g(7) === 1) return "loopback"
  if (zeros(0, 8)) return "unspecified"
  // IPv4-mapped, IPv4-compatible and NAT64 addresses carry an IPv4 address: it decides.
  if (zeros(0, 5) && g(5) === 0xffff) return classifyIpv4(embedded())
  if (zeros(0, 6)) return classifyIpv4(embedded())
  if (g(0) === 0x64 && g(1) === 0xff9b && zeros(2, 6)) return classifyIpv4(embedded())
  if ((g(0) & 0xffc0) === 0xfe80) return "link-local"
  if ((g(0) & 0xfe00) === 0xfc00) return "private"
  if (g(0) >= 0xff00 || (g(0) === 0x2001 && g(1) === 0x0db8)) return "reserved"
  return "public"
}

/** Whether a host string is an IPv4 or IPv6 literal. */
export const isIpLiteral = (host: string): boolean => parseIpv4(host) !== undefined || parseIpv6(host) !== undefined

/** The class of an IP literal; undefined for anything else (a name). */
export const classifyAddress = (address: string): AddressClass | undefined => {
  const v4 = parseIpv4(address)
  if (v4 !== undefined) return classifyIpv4(v4)
  const v6 = parseIpv6(address)
  return v6 === undefined ? undefined : classifyIpv6(v6)
}

/**
 * The address rule: metadata always refused; loopback, unspecified, link-local, private and reserved
 * refused unless allowPrivateNetwork. A string that is not an IP literal is refused (check after DNS).
 */
export const checkAddress = (address: string, policy: AddressPolicy): AddressVerdict => {
  const kind = classifyAddress(address)
  if (kind === undefined) {
    return { allowed: false, address, class: "reserved", message: `"${address}" is not an IP address; the policy is applied to the address connected to, after DNS.` }
  }
  if (kind === "public") return { allowed: true, address, class: kind }
  if (kind === "metadata") {
    return { allowed: false, address, class: kind, message: `${address} is a cloud metadata address, which is always refused (allowPrivateNetwork does not lift it).` }
  }
  if (policy.allowPrivateNetwork) return { allowed: true, address, class: kind }
  return {
    allowed: false,
    address,
    class: kind,
    message: `${address} is a ${kind} address; requests to private, loopback and link-local addresses are refused unless the user turns on allowPrivateNetwork.`
  }
}

/** The verdict on one URL. */
export type UrlVerdict =
  | { readonly ok: true; readonly url: string; readonly host: string }
  | { readonly ok: false; readonly reason: "invalid" | "scheme" | "length" | "credentials" | "address"; readonly message: string }

/** The longest URL a navigate may give, in characters. */
export const MAX_URL_CHARS = 8192

/**
 * The URL rule: an absolute http(s) URL of at most MAX_URL_CHARS characters, without credentials,
 * whose host (when an IP literal) passes `checkAddress`. `url` is the WHATWG serialisation without
 * the fragment: what an approval binds.
 */
export const checkUrl = (raw: string, policy: AddressPolicy): UrlVerdict => {
  if (raw.length > MAX_URL_CHARS) return { ok: false, reason: "length", message: `The URL is ${raw.length} characters; at most ${MAX_URL_CHARS} are allowed.` }
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return { ok: false, reason: "invalid", message: `"${raw.slice(0, 200)}" is not an absolute URL; give one like https://example.com/page.` }
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return {
      ok: false,
      reason: "scheme",
      message: `The scheme ${url.protocol} is refused: only http: and https: URLs are loaded (never file:, data:, javascript: or others).`
    }
  }
  if (url.username !== "" || url.password !== "") {
    return { ok: false, reason: "credentials", message: "The URL carries a user name or password, which would be sent to the host; remove them." }
  }
  const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname
  if (isIpLiteral(host)) {
    const verdict = checkAddress(host, policy)
    if (!verdict.allowed) return { ok: false, reason: "address", message: verdict.message }
  }
  url.hash = ""
  return { ok: true, url: url.href, host }
}
