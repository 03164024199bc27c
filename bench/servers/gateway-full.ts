/**
 * The gateway of servers/gateway.ts with its byte relay off (ByteRelay.Enabled): every call through the full path,
 * the baseline the relay is measured against in bench/gateway.ts.
 */
process.env.BENCH_GATEWAY_RELAY = "off"
await import("./gateway.ts")
