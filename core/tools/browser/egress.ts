/**
 * The browser's egress rules are the network layer's own (core/net/): the proxy checks every address it
 * connects to with `checkAddress`, and navigate's URL with `checkUrl`, so the browser and
 * workspace_research refuse exactly the same hosts.
 */
export {
  type AddressClass,
  type AddressPolicy,
  type AddressVerdict,
  checkAddress,
  checkUrl,
  classifyAddress,
  isIpLiteral,
  MAX_URL_CHARS,
  type UrlVerdict
} from "../../net/index.ts"
