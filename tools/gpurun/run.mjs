// run.mjs runs a memplan plan record on this machine's GPU from Node,
// with web/gpurun.js, the module the page runs, and Dawn's WebGPU from
// the npm package webgpu (npm install, here). Usage:
//
//   node run.mjs plan.json
//
// It prints the adapter, its limits that matter to the plan, and the
// result. Exit status: 0 the plan ran clean; 1 bad usage or a record the
// runner cannot run; 3 the device's limits are below what the plan needs;
// 4 the GPU found a tensor clobbered (the plan is invalid); 6 no WebGPU
// adapter (no GPU, nor a software Vulkan driver). docs/gpurun.md has more.
import { readFile } from "node:fs/promises";
import { runPlan, neededLimits, LimitError } from "../../web/gpurun.js";

const usage = "usage: node run.mjs plan.json   (a record from memplan plan --json)";
const fail = (code, msg) => { console.error("gpurun: " + msg); process.exit(code); };

const args = process.argv.slice(2);
if (args.length !== 1 || args[0].startsWith("-")) fail(1, usage);

let plan;
try {
  plan = JSON.parse(await readFile(args[0], "utf8"));
} catch (err) {
  fail(1, `${args[0]}: ${err.message}`);
}
if (!plan || plan.format !== "memplan.plan/v1") fail(1, `${args[0]}: not a memplan plan record (format ${JSON.stringify(plan && plan.format)})`);

let webgpu;
try {
  webgpu = await import("webgpu");
} catch (err) {
  fail(1, "the npm package webgpu is missing: run npm install in tools/gpurun (" + err.message + ")");
}
Object.assign(globalThis, webgpu.globals);
const gpu = webgpu.create([]);
const adapter = await gpu.requestAdapter();
if (!adapter) fail(6, "no WebGPU adapter on this machine: no GPU that Dawn can use, nor a software Vulkan driver");

const info = adapter.info || {};
console.log(`adapter: ${[info.vendor, info.architecture, info.device, info.description].filter(Boolean).join(" ") || "(unnamed)"}${adapter.isFallbackAdapter || info.isFallbackAdapter ? " (fallback)" : ""}`);

let need;
try {
  need = neededLimits(plan);
} catch (err) {
  fail(1, `${args[0]}: ${err.message}`);
}
const required = {};
for (const k of ["maxBufferSize", "maxStorageBufferBindingSize"]) {
  console.log(`${k}: adapter ${adapter.limits[k]}, plan ${need[k]}`);
  required[k] = Math.min(need[k], adapter.limits[k]);
}
console.log(`minStorageBufferOffsetAlignment: ${adapter.limits.minStorageBufferOffsetAlignment}`);
const device = await adapter.requestDevice({ requiredLimits: required });

let result;
try {
  result = await runPlan(plan, device);
} catch (err) {
  fail(err instanceof LimitError ? 3 : 1, `${args[0]}: ${err.message}`);
}
device.destroy();
console.log(JSON.stringify(result));
if (!result.ok) {
  const c = result.clobbered;
  fail(4, `step ${c.step}: ${c.tensor} was clobbered at its word ${c.word} (byte ${c.offset} of buffer ${c.buffer})${c.by ? " by " + c.by : ""}`);
}
console.log(`ok: ${result.steps} steps, ${result.tensors_written} tensors written, ${result.words_checked} words checked in ${result.ms.toFixed(0)} ms`);
process.exit(0);
