#!/usr/bin/env node
// The `effect-a2a` command, from the built JavaScript (`npm run build`; `npm ci` and `npm pack` build it). `serve`
// first starts itself again, in the same process, with its V8 flags (src/cli/Relaunch.ts).
import { relaunch } from "../dist/cli/Relaunch.js"

relaunch()
await import("../dist/cli/main.js")
