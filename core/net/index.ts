/**
 * The egress policy's public API, for every caller that reaches the network (workspace_research, the browser's
 * loopback proxy, the sub-agent model client). Pure rules plus the fetch engine; hosts bind `HttpClient`.
 *
 * @example
 *   import { checkUrl, checkAddress } from "../net/index.ts"
 *   const verdict = checkUrl(requestUrl, { allowPrivateNetwork: settings.allowPrivateNetwork })
 *   if (!verdict.ok) refuse(verdict.reason, verdict.message)
 *   // after connecting: checkAddress(socket.remoteAddress, policy).allowed
 */
export {
  type AddressClass,
  type AddressPolicy,
  type AddressVerdict,
  checkAddress,
  classifyAddress,
  isIpLiteral,
  METADATA_ADDRESSES
} from "./address.ts"
export { egressDenied, type EgressRequest, type EgressResponse, egressGet } from "./egress.ts"
export { NetState, type NetStateShape } from "./NetState.ts"
export {
  EGRESS_DENIED_NAME,
  EgressDeniedError,
  type EgressPolicy,
  findEgressDenial,
  MAX_REDIRECTS,
  policyFromSettings,
  ROBOTS_TOKEN,
  USER_AGENT
} from "./policy.ts"
export { ALLOW_ALL, decidingRule, parseRobots, robotsAllows, type RobotsRules } from "./robots.ts"
export { bareHost, checkUrl, MAX_URL_CHARS, normalizeUrl, type UrlRefusalReason, type UrlVerdict } from "./url.ts"
