// Preloaded into a server that is not ours to start (`node --import bench/servers/allocationPreload.ts`, as
// bench/cluster.ts does for its `serve` nodes with BENCH_ALLOCATIONS): the sampling allocation profile of
// lifecycle.ts, the garbage counted, from the first SIGUSR2 to the second, written to $BENCH_ALLOCATION_PROFILE.
import { installAllocationSampler } from "./lifecycle.ts"

installAllocationSampler()
