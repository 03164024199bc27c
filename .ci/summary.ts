// Prints the plain closing line `N passed, N failed[, N skipped]` from vitest's JSON report.
import { readFileSync } from "node:fs"

interface Report {
  readonly numPassedTests: number
  readonly numFailedTests: number
  readonly numPendingTests: number
  readonly numTodoTests: number
  readonly numTotalTests: number
}

const path = process.argv[2] ?? ".ci/report.json"
const report = JSON.parse(readFileSync(path, "utf8")) as Report
const skipped = report.numPendingTests + report.numTodoTests
const line = `${report.numPassedTests} passed, ${report.numFailedTests} failed` + (skipped > 0 ? `, ${skipped} skipped` : "")
console.log(line)
if (report.numTotalTests === 0 || report.numFailedTests > 0) process.exitCode = 1
