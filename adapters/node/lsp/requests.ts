/**
 * The requests of the Node host's language-server client: a request raced against the server's end and the
 * deadline, the documents opened around it, and the diagnostics (tsserver's, pulled, or pushed).
 */
import type { LanguageId, LspDiagnostic, OverlayDocument } from "../../../core/services/LanguageServers.ts"
import { failure, refusedOf, type Running, race } from "./common.ts"
import { diagnosticOf, type RawDiagnostic } from "./convert.ts"
import type { Slot } from "./slot.ts"
import { tsDiagnostics } from "./typescript.ts"

/** What the requests need of the workspace: its languages, its files' URIs and text, and its slots. */
export interface Client {
  readonly languageOf: (file: string) => LanguageId | undefined
  readonly uriOf: (rel: string) => string
  readonly readText: (rel: string) => string
  readonly slotOf: (language: LanguageId) => Slot
}

/** Opens `files` (disk text, or the overlay's) for one request, and closes them after. */
export const withOpen = async <A>(
  client: Client,
  server: Running,
  files: ReadonlyArray<string>,
  overlay: ReadonlyArray<OverlayDocument>,
  work: () => Promise<A>
): Promise<A> => {
  // The staged documents first, so the server never checks a requested file against the disk's version of them.
  const texts = new Map<string, string>()
  for (const doc of overlay) if (client.languageOf(doc.path) !== undefined) texts.set(doc.path, doc.text)
  for (const file of files) if (!texts.has(file)) texts.set(file, client.readText(file))
  const opened: Array<string> = []
  try {
    for (const [file, text] of texts) {
      if (client.languageOf(file) === undefined) continue
      await server.connection.sendNotification("textDocument/didOpen", {
        textDocument: { uri: client.uriOf(file), languageId: server.resolved.languageIdOf(file), version: 1, text }
      })
      opened.push(file)
    }
    return await work()
  } finally {
    for (const file of opened) {
      server.published.delete(file)
      if (server.dead) continue
      // A connection that ended meanwhile throws at once; the request's own failure is the one to report.
      await Promise.resolve()
        .then(() =>
          server.connection.sendNotification("textDocument/didClose", { textDocument: { uri: client.uriOf(file) } })
        )
        .catch(() => undefined)
    }
  }
}

export const request = <A>(server: Running, method: string, params: unknown, deadline: number) =>
  race(
    server,
    Promise.resolve()
      .then(() => server.connection.sendRequest(method, params))
      .catch(async (error: unknown) => {
        // An error the server answered has a numeric code; any other is the connection ending with the server,
        // whose exit (and stderr) follows: that is the failure to report.
        // (vscode-jsonrpc rejects a pending request with a coded error too when the connection ends.)
        const pending = (error as { code?: unknown }).code === -32097
        if (!server.dead && !pending && typeof (error as { code?: unknown }).code === "number") throw refusedOf(error)
        await Promise.race([server.exited, new Promise((resolve) => setTimeout(resolve, 2000))])
        throw failure(
          "crashed",
          `the language server's connection ended (${error instanceof Error ? error.message : String(error)})`
        )
      }),
    deadline,
    method
  ) as Promise<A>

/** Waits for the diagnostics of `files` published after `since`, then a short quiet time (push servers). */
const awaitPublished = (server: Running, files: ReadonlyArray<string>, since: number, deadline: number) =>
  new Promise<void>((resolve, reject) => {
    let quiet: NodeJS.Timeout | undefined
    const check = () => {
      const ready = files.every((file) => (server.published.get(file)?.at ?? 0) >= since)
      if (!ready) return
      if (quiet !== undefined) clearTimeout(quiet)
      quiet = setTimeout(done, 300)
    }
    const timer = setTimeout(
      () => {
        finish()
        reject(
          failure(
            "timeout",
            "the language server published no diagnostics within the deadline (setting languageServerTimeoutMs)"
          )
        )
      },
      Math.max(0, deadline - Date.now())
    )
    const finish = () => {
      clearTimeout(timer)
      if (quiet !== undefined) clearTimeout(quiet)
      server.listeners.delete(check)
    }
    const done = () => {
      finish()
      resolve()
    }
    server.listeners.add(check)
    server.exited.catch((error: unknown) => {
      finish()
      reject(error)
    })
    check()
  })

/** One server's diagnostics of `files`: tsserver's synchronous ones, pulled ones, or the pushed ones. */
const serverDiagnostics = async (
  client: Client,
  server: Running,
  language: LanguageId,
  files: ReadonlyArray<string>,
  deadline: number
): Promise<Array<LspDiagnostic>> => {
  if (language === "typescript")
    return tsDiagnostics(files, client.uriOf, (params) => request(server, "workspace/executeCommand", params, deadline))
  const out: Array<LspDiagnostic> = []
  if (server.capabilities["diagnosticProvider"] !== undefined) {
    for (const file of files) {
      const report = await request<{ items?: ReadonlyArray<RawDiagnostic> }>(
        server,
        "textDocument/diagnostic",
        { textDocument: { uri: client.uriOf(file) } },
        deadline
      )
      for (const item of report?.items ?? []) out.push(diagnosticOf(file, item))
    }
    return out
  }
  const since = Date.now()
  await awaitPublished(server, files, since - 1, deadline)
  for (const file of files) out.push(...(server.published.get(file)?.diagnostics ?? []))
  return out
}

/** The diagnostics of `paths`, each language's from its server, with the overlay's staged texts opened. */
export const diagnosticsOf = async (
  client: Client,
  paths: ReadonlyArray<string>,
  overlay: ReadonlyArray<OverlayDocument> = []
): Promise<Array<LspDiagnostic>> => {
  const byLanguage = new Map<LanguageId, Array<string>>()
  for (const file of paths) {
    const language = client.languageOf(file)
    if (language === undefined) continue
    byLanguage.set(language, [...(byLanguage.get(language) ?? []), file])
  }
  const all: Array<LspDiagnostic> = []
  for (const [language, files] of byLanguage) {
    const docs = overlay.filter((doc) => client.languageOf(doc.path) === language)
    const found = await client
      .slotOf(language)
      .run((server, deadline) =>
        withOpen(client, server, files, docs, () => serverDiagnostics(client, server, language, files, deadline))
      )
    all.push(...found)
  }
  return all
}
