/**
 * The toolkit's own folder outside every workspace, `${XDG_STATE_HOME:-$HOME/.local/state}/agentic-workspace`:
 * the approval keys live in its `keys/` (core/gate/key.ts), the CLI's code cache in its `code-cache/`
 * (adapters/node/commandCache.ts), and the command sandbox hides it whole (adapters/node/sandbox.ts). One
 * function, so those three agree on it. No imports: the Node entry loads it before anything else.
 */

/** The environment variables the folder's location depends on. */
export interface StateEnv {
  readonly XDG_STATE_HOME?: string | undefined
  readonly HOME?: string | undefined
}

const trimSlash = (dir: string) => (dir.length > 1 ? dir.replace(/\/+$/, "") : dir)

/** The folder. An empty or relative XDG_STATE_HOME is ignored, as the XDG base directory specification asks. */
export const stateDir = (env: StateEnv): string => {
  const xdg = env.XDG_STATE_HOME
  const base = xdg?.startsWith("/") ? trimSlash(xdg) : `${trimSlash(env.HOME ?? "")}/.local/state`
  return `${base}/agentic-workspace`
}
