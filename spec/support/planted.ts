/**
 * A transaction record as a planted `.agentic/transactions/<tx>/transaction.json` holds it (the hardening
 * specs plant them: a cloned repository's state is untrusted): no operations, zero hashes.
 */
export const plantedRecord = (id: string, status: string, createdAt = new Date().toISOString()) => ({
  version: 1,
  id,
  status,
  createdAt,
  operationsHash: "0",
  approvalHash: "0",
  operations: [],
  touched: [],
  files: [],
  directories: [],
  createdDirectories: [],
  destructive: [],
  artifacts: []
})

/** The "applying" journal of a planted transaction, unauthenticated (no mac), with the given entries. */
export const plantedJournal = (id: string, startedAt: string, entries: ReadonlyArray<unknown> = []) => ({
  version: 1,
  transactionId: id,
  status: "applying",
  startedAt,
  backups: `transactions/${id}/before.bin`,
  createdDirectories: [],
  entries
})
