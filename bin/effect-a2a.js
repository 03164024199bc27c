#!/usr/bin/env node
// The `effect-a2a` command, from the built JavaScript (`npm run build`; `npm ci` and `npm pack` build it).
import "../dist/cli/main.js"
