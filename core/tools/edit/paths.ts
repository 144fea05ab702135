/**
 * Where workspace_edit keeps its transactions, and what start-up recovery's scan found, apart from its Schemas so
 * the tool's light half (tool.ts) names them without loading them.
 */

/** The transactions folder under .agentic/. */
export const TRANSACTIONS_DIR = "transactions"

/** Per store: the ids the last full scan (start-up recovery's, record.ts committingTransactions) found committing and still are. */
export const scanned = new WeakMap<object, ReadonlySet<string>>()

/** A transaction's folder among the entries of TRANSACTIONS_DIR: a directory named `tx_...` (what every scan of it reads). */
export const isTransactionFolder = (entry: { readonly type: string; readonly name: string }): boolean =>
  entry.type === "directory" && entry.name.startsWith("tx_")
