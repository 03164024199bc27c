/** effect-a2a's server as `effect-a2a serve` runs it: the SQLite store (see ours.ts, BENCH_STORE). */
process.env.BENCH_STORE = "sqlite"
await import("./ours.ts")
