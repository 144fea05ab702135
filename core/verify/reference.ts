/**
 * The reference model as embedders see it (`ReferenceModel` of agentic-workspace/verify): the model itself and
 * the doc tables rendered from it. One module over both, so neither imports the other back.
 */
export * from "./model.ts"
export { approvalTablesMarkdown, DECISION_CASES } from "./approvalTables.ts"
