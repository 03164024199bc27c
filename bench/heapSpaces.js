// Loaded with `node --import` into the servers bench/startup.ts measures (plain JavaScript, so that it adds no type
// stripping to what is measured): on SIGURG (ignored by default, so a server without this module is unaffected) it
// writes one line to stdout, `HEAP_SPACES {...}`: RSS and where V8's heap is, in bytes, as the process sees it.
import * as V8 from "node:v8"

process.on("SIGURG", () => {
  const memory = process.memoryUsage()
  const spaces = Object.fromEntries(
    V8.getHeapSpaceStatistics().map((s) => [s.space_name, { used: s.space_used_size, physical: s.physical_space_size }])
  )
  process.stdout.write(
    `HEAP_SPACES ${
      JSON.stringify({
        rss: memory.rss,
        external: memory.external,
        arrayBuffers: memory.arrayBuffers,
        heapUsed: memory.heapUsed,
        spaces
      })
    }\n`
  )
})
