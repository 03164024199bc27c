/**
 * The gateway of servers/gateway.ts with its upstream calls through fetch, as `effect-a2a gateway` made them before
 * it used undici's pooled client: the baseline of bench/gateway.ts.
 */
process.env.BENCH_GATEWAY_CLIENT = "fetch"
await import("./gateway.ts")
