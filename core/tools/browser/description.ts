/** The description tools/list advertises for workspace_browser (with and without evaluate): reviewed like code; `npm run docs:mcp` shows it in docs/mcp.md. */
import { TYPE_MAX_CHARS, WAIT_MAX_MS } from "./limits.ts"

export const description = (evaluate: boolean): string =>
  [
    "A real headless browser (Chromium) you read in pages and drive only with the user's consent.",
    "Actions: open (a new session showing about:blank; returns session_id), read (the page as an accessibility snapshot, one line per element, each actionable element with a ref like e12; paged by offset/limit lines: pass data.nextOffset and data.snapshot exactly; options selector or ref for one subtree, text: true for the readable text, screenshot: true for a PNG artifact; console errors and failed requests in data.events), control (gated by the permission mode), list (sessions: open, closed, lost), close.",
    `control types: navigate (url), click (ref), click_text (text, exact), type (ref, text up to ${TYPE_MAX_CHARS} characters, submit), press (key), wait (text, ref or ms up to ${WAIT_MAX_MS}), scroll (direction up/down or ref), back, reload${evaluate ? ", evaluate (expression)" : ""}.`,
    "Refs are valid only in the latest snapshot of a session: after any read or control, older refs fail STALE_REF, so read again. Every control returns what changed and the new snapshot.",
    "Every request the page makes passes the egress policy (http/https only; private addresses only when the user allows them)."
  ].join(" ")
