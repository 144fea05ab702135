/**
 * workspace_browser: a real headless browser read in pages and driven only with consent. open, read,
 * list and close are never gated; control is gated as kind "browser" (the approval binds the session,
 * the control and its target). Registered only when enableBrowser is on and the host has the Browser
 * service; evaluate exists (in the schema too) only when enableBrowserEvaluate is on.
 */
import { lazyTool } from "../Tool.ts"
import { description } from "./description.ts"

const makeBrowserTool = (evaluate: boolean) =>
  lazyTool(
    {
      name: "workspace_browser",
      short: "browser",
      description: description(evaluate),
      enabled: (settings) => settings.enableBrowser && settings.enableBrowserEvaluate === evaluate,
      requires: ["browser"],
      hints: {
        readOnlyHint: false,
        destructiveHint: true,
        openWorldHint: true,
        why: "control clicks, types and submits on live pages (a form may delete on the site; unsure means yes); pages reach other hosts"
      },
      storage: [
        {
          name: "browser",
          path: ".agentic/browser/<session_id>/",
          probe: "browser",
          description: "browser sessions: record, snapshots, screenshots (workspace_browser)",
          rank: 95
        }
      ],
      probe: { args: { action: "list" }, ok: true }
    },
    () => import("./actions.ts").then((module) => module.partsFor(evaluate))
  )

/** workspace_browser without evaluate (enableBrowserEvaluate off): the control schema has no evaluate type. */
export const browserTool = makeBrowserTool(false)
/** workspace_browser with evaluate (enableBrowserEvaluate on). At most one of the two is registered. */
export const browserEvaluateTool = makeBrowserTool(true)
/** Both variants, for ALL_TOOLS. */
export const BROWSER_TOOLS = [browserTool, browserEvaluateTool] as const
