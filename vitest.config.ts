import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // finds the pinned upstream A2A schemas once (../shared/spec, A2A_SPEC_DIR, the cache or their URL); the codegen
    // drift tests skip with one line when they are not available
    // and gives the run a temporary directory of its own, removed when it ends (test/fixtures/TestTempDir.ts)
    globalSetup: ["test/fixtures/TestTempDir.ts", "test/codegen/UpstreamSetup.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks"
  }
})
