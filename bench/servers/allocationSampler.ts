/**
 * Preloaded (`node --import`) into a server the bench does not build itself (`effect-a2a serve` in
 * bench/SlowStreams.ts): V8's sampling heap profiler between two PROFILE_START_SIGNALs, into ALLOCATION_PROFILE_ENV.
 */
import { installAllocationSampler } from "./lifecycle.ts"

installAllocationSampler()
