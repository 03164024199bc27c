// A callgrind count of a node split as bench/notes read it (#42): `node bench/callgrindSplit.ts CALLGRIND.OUT [TURNS]`.
//
// V8's garbage collector and its compilers are native functions with names; the JavaScript the JIT made has none
// under valgrind. So the split is: "GC" (V8's marking, scavenging, sweeping, evacuation, the heap's page tracking),
// "compiler" (the parser, the bytecode generator, Sparkplug, Maglev, Turbofan), "builtins" (V8's embedded builtins:
// property loads, calls, Promise jobs...), and "the rest" (the JIT's code, node, libuv, libc, the system calls'
// entry). Self instructions per function, from `callgrind_annotate --inclusive=no`; with TURNS, per turn.
import { execFileSync } from "node:child_process"

const [file, turnsArg] = process.argv.slice(2)
if (file === undefined) throw new Error("usage: node bench/callgrindSplit.ts CALLGRIND.OUT [TURNS]")
const turns = turnsArg === undefined ? 1 : Number(turnsArg)
const text = execFileSync("callgrind_annotate", ["--inclusive=no", "--threshold=100", file], {
  maxBuffer: 1 << 28
}).toString()

const GC =
  /Heap|Marking|MarkCompact|Scaveng|Sweep|Evacuat|heap::base|SizeFromMap|BodyDescriptor|VisitMapPointer|Compactor|__popcount|RememberedSet|SlotSet|ConcurrentMarking|MinorMS|IterateBody|Worklist|LargeObjectSpace|PagedSpace|FreeList|MemoryChunk|PageMetadata/
const COMPILER =
  /compiler::|maglev::|Maglev|turboshaft|Turboshaft|baseline::|interpreter::Bytecode|Parser|Scanner|AstNode|Compiler::|CodeGenerator|Assembler|RegisterAllocator|Zone::/
const split = { GC: 0, compiler: 0, builtins: 0, "the rest": 0 }
let total = 0
for (const line of text.split("\n")) {
  const m = /^\s*([\d,]+) \([\s\d.]+%\)\s+(.*)$/.exec(line)
  if (m === null) continue
  const count = Number(m[1]!.replaceAll(",", ""))
  const name = m[2]!
  if (name.startsWith("PROGRAM TOTALS")) {
    total = count
    continue
  }
  if (GC.test(name)) split.GC += count
  else if (COMPILER.test(name)) split.compiler += count
  else if (name.includes("Builtins_")) split.builtins += count
  else split["the rest"] += count
}
// What the threshold left out of the listing counts as the rest.
split["the rest"] += total - split.GC - split.compiler - split.builtins - split["the rest"]
const k = (n: number) => `${Math.round(n / turns / 1000)}k`
console.log(
  `${file}: ${k(total)} instructions${turns === 1 ? "" : " per turn"}; ` +
    Object.entries(split).map(([name, n]) => `${name} ${k(n)} (${(n / total * 100).toFixed(1)}%)`).join(", ")
)
