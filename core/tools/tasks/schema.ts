/** workspace_tasks input: the limits, the board and item ids and the Schemas of its actions. */
import * as Schema from "effect/Schema"
import { BoundedString } from "../Tool.ts"
import { ITEM_STATUSES, PRIORITIES } from "./board.ts"

import { TASKS_DIR } from "./paths.ts"

/** The boards folder under .agentic/ (paths.ts). */
export { TASKS_DIR }
export const BOARD_ID = /^board_[A-Za-z0-9]+$/
/** Items one board may hold, and one create/add call may add. */
export const MAX_ITEMS = 500
export const MAX_ITEMS_PER_CALL = 200

export const boardFile = (id: string) => `${TASKS_DIR}/${id}/state.json`

export const BoardId = Schema.String.pipe(
  Schema.pattern(BOARD_ID, { message: () => "must be a board_* id" })
).annotations({
  description: "The board_… id from create."
})
export const ItemId = Schema.String.pipe(
  Schema.pattern(/^item_[A-Za-z0-9]+$/, { message: () => "must be an item_* id" })
).annotations({
  description: "The item_… id."
})
export const Status = Schema.Literal(...ITEM_STATUSES).annotations({
  description: "Default todo; only done satisfies a dependency."
})
export const Priority = Schema.Literal(...PRIORITIES).annotations({ description: "Default medium." })
export const Text = BoundedString(2000)
  .pipe(Schema.minLength(1, { message: () => "must not be empty" }))
  .annotations({ description: "The item's text; note and checkpoint: the note." })
export const Details = BoundedString(20_000, "Longer details.")
export const Reference = Schema.Union(BoundedString(100), Schema.Int)
export const DependsOn = Schema.Array(Reference).pipe(Schema.maxItems(100)).annotations({
  description: 'item_ ids; in create/add also 1-based positions ("1") in the same call. update replaces the list.'
})
export const NewItemSchema = Schema.Struct({
  text: Text,
  status: Schema.optional(Status),
  priority: Schema.optional(Priority),
  details: Schema.optional(Details),
  depends_on: Schema.optional(DependsOn)
})
export const Items = Schema.Array(NewItemSchema)
  .pipe(Schema.maxItems(MAX_ITEMS_PER_CALL, { message: () => `must hold at most ${MAX_ITEMS_PER_CALL} items` }))
  .annotations({
    description: "New items: a JSON array of {text, status, priority, details, depends_on} (as below; text required)."
  })
export const Evidence = Schema.Union(
  BoundedString(4000),
  Schema.Array(BoundedString(4000)).pipe(Schema.maxItems(50))
).annotations({
  description: "Evidence to append: a string or a list."
})
export const NoteText = BoundedString(4000, "The item's text; note and checkpoint: the note.")

/** The actions of workspace_tasks and their inputs. */
export const tasksActions = {
  create: Schema.Struct({
    title: BoundedString(200)
      .pipe(Schema.minLength(1, { message: () => "must not be empty" }))
      .annotations({ description: "The board's title." }),
    items: Schema.optional(Items)
  }),
  list: Schema.Struct({
    include_archived: Schema.optional(Schema.Boolean.annotations({ description: "Also list archived boards." })),
    limit: Schema.optional(
      Schema.Int.pipe(Schema.between(1, 100)).annotations({ description: "Boards (1-100, default 20)." })
    )
  }),
  show: Schema.Struct({ board_id: BoardId }),
  add: Schema.Struct({ board_id: BoardId, items: Items }),
  update: Schema.Struct({
    board_id: BoardId,
    item_id: ItemId,
    text: Schema.optional(Text),
    status: Schema.optional(Status),
    priority: Schema.optional(Priority),
    details: Schema.optional(Details),
    depends_on: Schema.optional(DependsOn),
    evidence: Schema.optional(Evidence)
  }),
  remove: Schema.Struct({ board_id: BoardId, item_id: ItemId }),
  note: Schema.Struct({ board_id: BoardId, text: NoteText, item_id: Schema.optional(ItemId) }),
  checkpoint: Schema.Struct({ board_id: BoardId, text: Schema.optional(NoteText) }),
  next: Schema.Struct({ board_id: BoardId }),
  archive: Schema.Struct({ board_id: BoardId }),
  reopen: Schema.Struct({ board_id: BoardId })
}

/** The decoded input of one action. */
export type TasksInput<K extends keyof typeof tasksActions> = Schema.Schema.Type<(typeof tasksActions)[K]>
