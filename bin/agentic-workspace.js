#!/usr/bin/env node
// The agentic-workspace command: runs the TypeScript sources through tsx's loader on Node.
import { register } from "tsx/esm/api"

register()
await import("../adapters/node/main.ts")
