/**
 * The gateway of servers/gateway.ts with its byte relay on Effect's generic HTTP server and HttpClient (no
 * NodeNativeRelay): the baseline the native relay is measured against in bench/gateway.ts.
 */
process.env.BENCH_GATEWAY_NATIVE = "off"
await import("./gateway.ts")
