/** What the CLI's verbs share: JSON output and running with an opened workspace (closed after). */
import type { CliHost } from "./cli.ts"
import type { ParsedLine } from "./cliLine.ts"
import type { OpenFailure, Session } from "./open.ts"

/** A value as the CLI prints JSON. */
export const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`

/** Opens the line's workspace, runs `use` (or `onFailure` when it did not open) and closes it. */
export const withWorkspace = async (
  line: ParsedLine,
  host: CliHost,
  use: (session: Session) => Promise<number>,
  onFailure?: (failure: OpenFailure, session: Session) => Promise<number> | number
): Promise<number> => {
  const session = await host.open(line.root, line.settings)
  try {
    if (session.failure !== undefined) {
      if (onFailure !== undefined) return await onFailure(session.failure, session)
      host.stderr(`agentic-workspace: ${session.failure.reason}. ${session.failure.repair}\n`)
      return 2
    }
    return await use(session)
  } finally {
    await session.close()
  }
}
