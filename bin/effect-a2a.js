#!/usr/bin/env node
// Node >= 22.19 runs the TypeScript sources directly (type stripping), so there is no build step.
import "../src/cli/main.ts"
