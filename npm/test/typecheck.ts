// A user's TypeScript against the package's index.d.ts (generated from
// Go's types): tools/npm's TestTypeScript runs tsc on it. The lines
// under @ts-expect-error must not type-check: if the types lose their
// shape (any), tsc fails on them.
import { plan, verify, fit, explain, diff, svg, maxInputBytes, close, MemplanError } from "memplan";
import type { Options, PlanRecord, SymbolFit, Explanation, Diff, ErrorFields } from "memplan";

export async function use(bytes: Uint8Array, file: File): Promise<number> {
  const controller = new AbortController();
  const options: Options = { strategy: "best-fit", f32Uniform: true, alignment: "256", symbols: { batch: 8, seq: "past+1" }, webgpu: "default", binding: "tensor", skip: ["params"] };
  const record: PlanRecord = await plan(bytes, { ...options, name: "model.onnx", signal: controller.signal, onProgress: (m: string) => console.log(m) });
  const offset: number = record.tensors[0].offset;
  const arena: number = record.arena_size;
  const { ok, errors } = await verify(record, file);
  const where: Array<string | undefined> = errors.map((e: MemplanError) => e.path ?? e.node ?? e.file);
  const largest: SymbolFit = await fit(bytes, { symbol: "batch", webgpu: "android" });
  const why: Explanation = await explain(record, record.tensors[0].name);
  const d: Diff = await diff(bytes, record, { strategy: "auto" }, { strategy: "no-reuse" });
  const picture: string = await svg(record, { width: 640, height: 360, theme: "dark" });
  const limit: number = await maxInputBytes();
  const backward: PlanRecord = await plan(bytes, { timeLimit: "10s", autoSlice: "0s", maxMemory: "512MiB", forward: file, forwardName: "forward.json" });
  try {
    await plan(new URL("file:///model.onnx"));
  } catch (e) {
    if (e instanceof MemplanError) {
      const fields: ErrorFields = e;
      console.log(fields.kind, e.file, e.line, e.path, e.node, e.fit?.text);
    }
  }
  close();
  console.log(ok, where, largest.value, why.tensor, d, picture.length, limit, backward.arena_size);
  return offset + arena;
}

export async function misuse(bytes: Uint8Array): Promise<void> {
  // @ts-expect-error: no such strategy
  await plan(bytes, { strategy: "fastest" });
  // @ts-expect-error: a switch is a boolean
  await plan(bytes, { f32Uniform: "yes" });
  // @ts-expect-error: no such option
  await plan(bytes, { alignmentBytes: 64 });
  // @ts-expect-error: a duration is a string ("10s")
  await plan(bytes, { timeLimit: 10 });
  // @ts-expect-error: fit needs the symbol
  await fit(bytes, { webgpu: "default" });
  const record = await plan(bytes);
  // @ts-expect-error: the arena is a number
  const s: string = record.arena_size;
  console.log(s);
}
