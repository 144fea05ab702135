/**
 * What kind of address an IP is, and whether the egress policy lets a request connect to it. Pure:
 * the Node connector, the Deno resolver, the browser's loopback proxy and the fetch engine all call
 * `checkAddress` on the address they are about to use (or have connected to).
 *
 * @example
 *   checkAddress("10.0.0.7", { allowPrivateNetwork: false })
 *   // { allowed: false, reason: "private", address: "10.0.0.7", message: "..." }
 */

/** The class of an address, from the most to the least dangerous. */
export type AddressClass = "metadata" | "loopback" | "unspecified" | "link-local" | "private" | "reserved" | "public"

/** Cloud metadata endpoints: refused whatever allowPrivateNetwork says. */
export const METADATA_ADDRESSES: ReadonlyArray<string> = ["169.254.169.254", "fd00:ec2::254"]

/** The verdict on one address. */
export type AddressVerdict =
  | { readonly allowed: true; readonly address: string; readonly class: AddressClass }
  | {
      readonly allowed: false
      readonly address: string
      readonly class: Exclude<AddressClass, "public">
      readonly message: string
    }

/** Parses a dotted IPv4 address into its four bytes, or undefined. */
export const parseIpv4 = (text: string): [number, number, number, number] | undefined => {
  const parts = text.split(".")
  if (parts.length !== 4) return undefined
  const bytes = parts.map((part) => (/^(0|[1-9][0-9]{0,2})$/.test(part) ? Number(part) : Number.NaN))
  if (bytes.some((byte) => !Number.isInteger(byte) || byte > 255)) return undefined
  return bytes as [number, number, number, number]
}

/** Parses an IPv6 address (brackets and a zone id allowed) into its eight 16-bit groups, or undefined. */
export const parseIpv6 = (input: string): ReadonlyArray<number> | undefined => {
  let text = input.startsWith("[") && input.endsWith("]") ? input.slice(1, -1) : input
  const zone = text.indexOf("%")
  if (zone >= 0) text = text.slice(0, zone)
  if (!text.includes(":")) return undefined
  const lastColon = text.lastIndexOf(":")
  const last = text.slice(lastColon + 1)
  if (last.includes(".")) {
    // A trailing dotted quad (::ffff:127.0.0.1) is two groups.
    const v4 = parseIpv4(last)
    if (v4 === undefined) return undefined
    text = `${text.slice(0, lastColon + 1)}${((v4[0] << 8) | v4[1]).toString(16)}:${((v4[2] << 8) | v4[3]).toString(16)}`
  }
  const halves = text.split("::")
  if (halves.length > 2) return undefined
  const group = (part: string) => (part === "" ? [] : part.split(":"))
  const head = group(halves[0]!)
  const rest = halves.length === 2 ? group(halves[1]!) : []
  const parsed = [...head, ...rest].map((hex) =>
    /^[0-9a-fA-F]{1,4}$/.test(hex) ? Number.parseInt(hex, 16) : Number.NaN
  )
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
  if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127))
    return "private"
  if ((a === 192 && b === 0 && c === 0) || (a === 198 && (b === 18 || b === 19)) || a >= 224) return "reserved"
  return "public"
}

const classifyIpv6 = (groups: ReadonlyArray<number>): AddressClass => {
  const g = (i: number) => groups[i]!
  const embedded = (hi: number, lo: number): [number, number, number, number] => [
    hi >> 8,
    hi & 0xff,
    lo >> 8,
    lo & 0xff
  ]
  // fd00:ec2::254, the AWS IPv6 metadata endpoint.
  if (
    g(0) === 0xfd00 &&
    g(1) === 0x0ec2 &&
    g(2) === 0 &&
    g(3) === 0 &&
    g(4) === 0 &&
    g(5) === 0 &&
    g(6) === 0 &&
    g(7) === 0x254
  )
    return "metadata"
  const zeros = (from: number, to: number) => groups.slice(from, to).every((value) => value === 0)
  if (zeros(0, 7) && g(7) === 1) return "loopback"
  if (zeros(0, 8)) return "unspecified"
  // IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d) and NAT64 (64:ff9b::a.b.c.d) carry an IPv4 address.
  if (zeros(0, 5) && g(5) === 0xffff) return classifyIpv4(embedded(g(6), g(7)))
  if (zeros(0, 6)) return classifyIpv4(embedded(g(6), g(7)))
  if (g(0) === 0x64 && g(1) === 0xff9b && zeros(2, 6)) return classifyIpv4(embedded(g(6), g(7)))
  // 6to4 (2002:AABB:CCDD::/48) carries one in its second and third groups.
  if (g(0) === 0x2002) return classifyIpv4(embedded(g(1), g(2)))
  if ((g(0) & 0xffc0) === 0xfe80) return "link-local"
  if ((g(0) & 0xfe00) === 0xfc00 || (g(0) & 0xffc0) === 0xfec0) return "private"
  if ((g(0) & 0xff00) === 0xff00) return "reserved"
  return "public"
}

/** Whether `text` is an IP literal (IPv4 dotted or IPv6, with or without brackets). */
export const isIpLiteral = (text: string): boolean => parseIpv4(text) !== undefined || parseIpv6(text) !== undefined

/** The class of an IP address; undefined when `text` is not an IP address. */
export const classifyAddress = (text: string): AddressClass | undefined => {
  const v4 = parseIpv4(text)
  if (v4 !== undefined) return classifyIpv4(v4)
  const v6 = parseIpv6(text)
  return v6 === undefined ? undefined : classifyIpv6(v6)
}

/** The options of the address rule. */
export interface AddressPolicy {
  /** Lets loopback, private, link-local and reserved addresses through (never the metadata ones). */
  readonly allowPrivateNetwork: boolean
}

/**
 * The address rule: cloud metadata addresses are refused always; loopback, unspecified, link-local,
 * private and reserved ones unless allowPrivateNetwork; anything that is not an IP address is refused
 * (a caller checks the address it resolved, never a name).
 */
export const checkAddress = (address: string, policy: AddressPolicy): AddressVerdict => {
  const kind = classifyAddress(address)
  if (kind === undefined) {
    return {
      allowed: false,
      address,
      class: "reserved",
      message: `"${address}" is not an IP address; the egress policy checks resolved addresses only.`
    }
  }
  if (kind === "public") return { allowed: true, address, class: kind }
  if (kind === "metadata") {
    return {
      allowed: false,
      address,
      class: kind,
      message: `${address} is a cloud metadata address; it is refused always, whatever allowPrivateNetwork says.`
    }
  }
  if (policy.allowPrivateNetwork) return { allowed: true, address, class: kind }
  return {
    allowed: false,
    address,
    class: kind,
    message: `${address} is a ${kind} address; requests to this machine or the local network are refused while allowPrivateNetwork is off (the user can turn it on).`
  }
}
