// gpurun.js runs a memplan plan record (memplan.plan/v1) on a GPUDevice's
// memory, to show on real hardware that the plan's tensors never clobber
// each other. It creates the plan's GPU buffers; at each step a compute
// shader writes the tensors born there (word w of tensor i holds
// hash(i, w)) and checks that every tensor the op reads, and every tensor
// whose life ends there, still holds what its producer wrote. Views are
// read through their root, at their offset. A plain ES module, no
// dependencies: the page, the browser test and tools/gpurun/run.mjs
// (Node) share it. docs/gpurun.md describes it.
//
//   import { runPlan, neededLimits } from "./gpurun.js";
//   const device = await adapter.requestDevice({ requiredLimits: ... });
//   const result = await runPlan(record, device, { onProgress });
//
// The step's writes come before its checks: the op's outputs are live at
// the step, as its inputs are, so a valid plan keeps them apart, and
// checking after the writes also catches an output laid over an input.

const PIECE_WORDS = 4096; // words one workgroup of 64 handles
const WORKGROUP = 64;
const BATCH_WORDS = 1 << 23; // words per submission: progress and an early stop between
const BATCH_PIECES = 1 << 15;
const NONE = 0xffffffff;
const PIECE_U32 = 8; // start, count, key, base, slot and padding: 32 bytes

// The hash, in WGSL and in JavaScript (to name what overwrote a word).
// mix is lowbias32, a bijection on 32 bits: a tensor's words all differ.
const SHADER = `
struct Piece { start: u32, count: u32, key: u32, base: u32, slot: u32, p0: u32, p1: u32, p2: u32 }
@group(0) @binding(0) var<storage, read_write> data: array<u32>;
@group(1) @binding(0) var<storage, read> pieces: array<Piece>;
@group(1) @binding(1) var<storage, read_write> errs: array<atomic<u32>>;

fn mix(v: u32) -> u32 {
  var x = v;
  x ^= x >> 16u; x *= 0x7feb352du; x ^= x >> 15u; x *= 0x846ca68bu; x ^= x >> 16u;
  return x;
}
fn expected(key: u32, w: u32) -> u32 { return mix(w ^ mix(key + 0x9e3779b9u)); }

@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(workgroup_id) wg: vec3u, @builtin(num_workgroups) n: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let i = wg.y * n.x + wg.x;
  if (i >= arrayLength(&pieces)) { return; }
  let p = pieces[i];
  if (p.slot == 0xffffffffu) {
    for (var k = lid; k < p.count; k += ${WORKGROUP}u) { data[p.start + k] = expected(p.key, p.base + k); }
    return;
  }
  for (var k = lid; k < p.count; k += ${WORKGROUP}u) {
    if (data[p.start + k] != expected(p.key, p.base + k)) {
      atomicMin(&errs[p.slot + 1u], p.base + k);
      atomicMin(&errs[0], p.slot);
      return;
    }
  }
}`;

function mix(v) {
  let x = v >>> 0;
  x ^= x >>> 16; x = Math.imul(x, 0x7feb352d) >>> 0;
  x ^= x >>> 15; x = Math.imul(x, 0x846ca68b) >>> 0;
  x ^= x >>> 16;
  return x >>> 0;
}
const expected = (key, w) => mix((w ^ mix((key + 0x9e3779b9) >>> 0)) >>> 0);

const up4 = (n) => Math.ceil(n / 4) * 4;

// PlanError is a record runPlan cannot run: what is wrong and where.
export class PlanError extends Error {
  constructor(msg) { super(msg); this.name = "PlanError"; }
}

// LimitError is a plan that needs more than the device allows: a GPU
// buffer over its maxBufferSize.
export class LimitError extends Error {
  constructor(msg) { super(msg); this.name = "LimitError"; }
}

const whole = (v) => Number.isSafeInteger(v) && v >= 0;

// neededLimits is what a device must allow for runPlan to run the plan as
// its binding model says, with WebGPU's names: buffers as large as the
// plan's, and bindings as large as the model binds (the arena, or the
// largest tensor). runPlan binds in pieces when the device allows less.
export function neededLimits(plan) {
  const l = layout(plan, { maxStorageBufferBindingSize: Infinity, minStorageBufferOffsetAlignment: 4 });
  return { maxBufferSize: Math.max(...l.bufferSizes), maxStorageBufferBindingSize: l.widestBinding };
}

// layout reads the record: where each tensor's words lie, and the
// ranges the binding model binds. Limits are the device's.
function layout(plan, limits) {
  if (!plan || typeof plan !== "object" || !Array.isArray(plan.tensors)) throw new PlanError("not a plan record: it has no tensors array");
  const binding = plan.binding === undefined ? "arena" : plan.binding;
  if (binding !== "arena" && binding !== "tensor") throw new PlanError(`binding: ${JSON.stringify(binding)} is neither "arena" nor "tensor"`);
  if (!whole(plan.steps)) throw new PlanError("steps: want a whole number, got " + JSON.stringify(plan.steps));
  const ts = plan.tensors, n = ts.length;
  const where = (i, field) => `tensors[${i}] (${JSON.stringify(ts[i] && ts[i].name)})${field ? "." + field : ""}`;
  const index = new Map();
  ts.forEach((t, i) => {
    if (!t || typeof t.name !== "string") throw new PlanError(where(i) + ": no name");
    for (const f of ["size", "birth", "death"]) if (!whole(t[f])) throw new PlanError(`${where(i, f)}: want a whole number, got ${JSON.stringify(t[f])}`);
    if (t.birth > t.death || t.death > plan.steps) throw new PlanError(`${where(i)}: lives over steps ${t.birth} to ${t.death}, not within 0 to ${plan.steps}`);
    index.set(t.name, i);
  });
  const align = limits.minStorageBufferOffsetAlignment;

  // The GPU buffers, each a whole number of words.
  let bufferSizes;
  if (binding === "arena") {
    if (!whole(plan.arena_size)) throw new PlanError("arena_size: want a whole number, got " + JSON.stringify(plan.arena_size));
    bufferSizes = [Math.max(4, up4(plan.arena_size))];
  } else {
    if (!Array.isArray(plan.buffers)) throw new PlanError('binding "tensor" needs a buffers array');
    bufferSizes = plan.buffers.map((b, k) => {
      if (!b || !whole(b.size)) throw new PlanError(`buffers[${k}].size: want a whole number`);
      return Math.max(4, up4(b.size));
    });
  }

  // Each tensor's place: GPU buffer and byte offset, and its root.
  const buf = new Int32Array(n).fill(-1), at = new Float64Array(n), root = new Int32Array(n).fill(-1);
  for (let i = 0; i < n; i++) {
    const t = ts[i];
    // Skipped tensors are not in memory; empty ones have no words (and
    // under tensor binding no buffer).
    if (t.skipped || t.root || t.offset < 0 || t.size === 0) continue;
    if (binding === "arena") {
      if (!whole(t.offset) || t.offset + t.size > plan.arena_size) throw new PlanError(`${where(i, "offset")}: ${t.offset} + size ${t.size} is outside the arena of ${plan.arena_size} bytes`);
      buf[i] = 0; at[i] = t.offset;
    } else {
      const b = t.buffer, o = t.buffer_offset;
      if (!Number.isInteger(b) || b < 0 || b >= bufferSizes.length) throw new PlanError(`${where(i, "buffer")}: ${JSON.stringify(b)} is not one of the ${bufferSizes.length} buffers`);
      if (!whole(o) || o + t.size > plan.buffers[b].size) throw new PlanError(`${where(i, "buffer_offset")}: ${o} + size ${t.size} is outside buffers[${b}] of ${plan.buffers[b].size} bytes`);
      if (o % align) throw new PlanError(`${where(i, "buffer_offset")}: ${o} is not a multiple of this device's minStorageBufferOffsetAlignment ${align}, so the tensor cannot be bound where it lies`);
      buf[i] = b; at[i] = o;
    }
    root[i] = i;
  }
  for (let i = 0; i < n; i++) {
    const t = ts[i];
    if (!t.root || t.skipped) continue;
    const r = index.get(t.root);
    if (r === undefined || ts[r].root) throw new PlanError(`${where(i, "root")}: ${JSON.stringify(t.root)} is not a tensor that owns bytes`);
    if (root[r] < 0) continue; // its root is not in memory
    if (!whole(t.view_offset) || t.view_offset + t.size > ts[r].size) throw new PlanError(`${where(i)}: the view's bytes (${t.view_offset} + ${t.size}) are outside its root ${JSON.stringify(t.root)} (${ts[r].size} bytes)`);
    root[i] = r; buf[i] = buf[r]; at[i] = at[r] + t.view_offset;
  }

  // Words: a tensor covers the f32 words its bytes touch. When some
  // offsets are not multiples of 4 (a byte-aligned buffer list), two
  // tensors may share a word, so then only the words wholly inside it.
  let aligned = true;
  for (let i = 0; i < n; i++) if (root[i] === i && at[i] % 4) aligned = false;
  const first = new Float64Array(n), end = new Float64Array(n); // word range [first, end) in its buffer
  for (let i = 0; i < n; i++) {
    if (root[i] < 0) continue;
    first[i] = Math.ceil(at[i] / 4);
    end[i] = Math.max(first[i], aligned ? Math.ceil((at[i] + ts[i].size) / 4) : Math.floor((at[i] + ts[i].size) / 4));
  }
  for (let i = 0; i < n; i++) {
    const r = root[i];
    if (r < 0 || r === i) continue;
    first[i] = Math.max(first[i], first[r]);
    end[i] = Math.max(first[i], Math.min(end[i], end[r]));
  }
  for (let i = 0; i < n; i++) {
    if (end[i] - first[i] > NONE - 1) throw new PlanError(`${where(i)}: ${ts[i].size} bytes is more words than the check counts (2^32)`);
  }

  // What the binding model binds. Arena: the whole buffer, once. Tensor:
  // each owner's own range. Either in tiles of at most the device's
  // binding size, each starting on its offset alignment.
  const tile = Math.floor(Math.min(limits.maxStorageBufferBindingSize, 2 ** 52) / align) * align;
  if (tile < align) throw new PlanError(`maxStorageBufferBindingSize ${limits.maxStorageBufferBindingSize} is below the offset alignment ${align}`);
  let widestBinding = 0;
  const region = (i) => binding === "arena"
    ? { start: 0, size: bufferSizes[0] }
    : { start: at[root[i]], size: up4(ts[root[i]].size) };
  if (binding === "arena") widestBinding = bufferSizes[0];
  else for (let i = 0; i < n; i++) if (root[i] === i) widestBinding = Math.max(widestBinding, up4(ts[i].size));

  let reads = null;
  if (plan.reads !== undefined && plan.reads !== null) {
    if (!Array.isArray(plan.reads) || plan.reads.length !== plan.steps) throw new PlanError(`reads: want an array of ${plan.steps} steps`);
    reads = plan.reads.map((r, s) => {
      if (r === null) return []; // a step that reads nothing
      if (!Array.isArray(r)) throw new PlanError(`reads[${s}]: want an array of tensor indexes`);
      r.forEach((k, j) => { if (!Number.isInteger(k) || k < 0 || k >= n) throw new PlanError(`reads[${s}][${j}]: ${JSON.stringify(k)} is not a tensor index`); });
      return r;
    });
  }
  return { binding, bufferSizes, buf, root, first, end, tile, region, widestBinding, reads, n };
}

// runPlan runs the plan on device and resolves to the result:
//   {ok, binding, steps, tensors_written, words_written, checks,
//    words_checked, dispatches, bindings, ms, clobbered}
// where clobbered is null, or the first tensor found changed:
//   {step, tensor, index, word, buffer, offset, by}
// word counts the tensor's own f32 words from 0; offset is the byte in
// GPU buffer `buffer` (the arena under arena binding); by names the tensor
// whose word was found there, when one matches. A record it cannot run
// (a field out of range) rejects with a PlanError saying where; one over
// the device's maxBufferSize with a LimitError. opts.onProgress({step, steps})
// hears after each submission; opts.limits may lower the device's limits
// (to test the binding in pieces).
export async function runPlan(plan, device, opts = {}) {
  const t0 = performance.now();
  const limits = {
    maxStorageBufferBindingSize: device.limits.maxStorageBufferBindingSize,
    maxBufferSize: device.limits.maxBufferSize,
    minStorageBufferOffsetAlignment: device.limits.minStorageBufferOffsetAlignment,
    maxComputeWorkgroupsPerDimension: device.limits.maxComputeWorkgroupsPerDimension,
  };
  for (const [k, v] of Object.entries(opts.limits || {})) {
    if (k in limits) limits[k] = k === "minStorageBufferOffsetAlignment" ? Math.max(limits[k], v) : Math.min(limits[k], v);
  }
  const L = layout(plan, limits);
  const ts = plan.tensors, steps = plan.steps;
  L.bufferSizes.forEach((size, k) => {
    if (size > limits.maxBufferSize) {
      throw new LimitError(`${L.binding === "arena" ? "the arena" : `buffers[${k}]`} needs a GPU buffer of ${size} bytes; this device allows at most maxBufferSize ${limits.maxBufferSize}`);
    }
  });

  // Who is written and checked at each step that has any: births and
  // deaths come from the tensors and reads from the record, so the work
  // follows the record's size, however many steps it claims.
  const words = (i) => L.end[i] - L.first[i];
  const work = new Map(); // step → {births, checks}
  const stepWork = (s) => { let w = work.get(s); if (!w) work.set(s, w = { births: [], checks: [] }); return w; };
  for (let i = 0; i < L.n; i++) if (L.root[i] === i && words(i)) stepWork(ts[i].birth).births.push(i);
  const seen = new Float64Array(L.n).fill(-1);
  let nChecks = 0;
  const check = (s, i) => { if (L.root[i] >= 0 && words(i) && seen[i] !== s) { seen[i] = s; stepWork(s).checks.push(i); nChecks++; } };
  if (L.reads) L.reads.forEach((r, s) => r.forEach((i) => check(s, i)));
  for (let i = 0; i < L.n; i++) check(ts[i].death, i);
  const order = [...work.keys()].sort((a, b) => a - b);
  if (4 * (nChecks + 1) > limits.maxStorageBufferBindingSize) throw new PlanError(`${nChecks} checks need more error slots than one binding holds`);

  device.pushErrorScope("out-of-memory");
  device.pushErrorScope("validation");
  const module = device.createShaderModule({ code: SHADER });
  const pipeline = device.createComputePipeline({ layout: "auto", compute: { module, entryPoint: "main" } });
  const U = GPUBufferUsage;
  const owned = [];
  const buffer = (size, usage) => { const b = device.createBuffer({ size, usage }); owned.push(b); return b; };
  const gpu = L.bufferSizes.map((size) => buffer(size, U.STORAGE | U.COPY_SRC | U.COPY_DST));
  const errs = buffer(up4(4 * (nChecks + 1)), U.STORAGE | U.COPY_SRC | U.COPY_DST);
  device.queue.writeBuffer(errs, 0, new Uint32Array(nChecks + 1).fill(NONE));
  const readback = buffer(8, U.MAP_READ | U.COPY_DST);
  const setup = [await device.popErrorScope(), await device.popErrorScope()].find(Boolean);
  if (setup) {
    owned.forEach((b) => b.destroy());
    throw new Error("the GPU refused the plan's buffers: " + setup.message);
  }

  const tileGroups = new Map();
  const tileGroup = (b, start, size) => {
    const key = b + ":" + start + ":" + size;
    let g = tileGroups.get(key);
    if (!g) {
      g = device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries: [{ binding: 0, resource: { buffer: gpu[b], offset: start, size } }] });
      tileGroups.set(key, g);
    }
    return g;
  };

  const res = {
    ok: true, binding: L.binding, steps, tensors_written: 0, words_written: 0, checks: 0, words_checked: 0,
    dispatches: 0, bindings: 0, ms: 0, clobbered: null,
  };
  // A batch: dispatches, each {group, pieces: [u32 ×8, ...]}.
  let batch = [], batchWords = 0, batchPieces = 0, slot = 0;
  const checkedAt = []; // slot → [step, tensor]

  // plan1 adds the pieces of tensor i's words to the step's dispatches, a
  // dispatch per binding range; slot NONE writes.
  const plan1 = (i, slotNo, dispatches) => {
    const r = L.root[i], b = L.buf[i], reg = L.region(r);
    for (let w = L.first[i]; w < L.end[i];) {
      const k = Math.floor((w * 4 - reg.start) / L.tile);
      const tStart = reg.start + k * L.tile, tSize = Math.min(L.tile, reg.size - k * L.tile);
      const stop = Math.min(L.end[i], (tStart + tSize) / 4);
      const key = b + ":" + tStart + ":" + tSize;
      let d = dispatches.get(key);
      if (!d) { d = { group: tileGroup(b, tStart, tSize), pieces: [] }; dispatches.set(key, d); }
      for (; w < stop; w += PIECE_WORDS) {
        const count = Math.min(PIECE_WORDS, stop - w);
        d.pieces.push(w - tStart / 4, count, r, w - L.first[r], slotNo, 0, 0, 0);
        batchWords += count; batchPieces++;
      }
    }
  };

  const flush = async () => {
    if (!batch.length) return NONE;
    // Each dispatch's pieces start on the offset alignment.
    const stride = limits.minStorageBufferOffsetAlignment / 4;
    let total = 0;
    for (const d of batch) { d.at = total; total += Math.ceil(d.pieces.length / stride) * stride; }
    const list = new Uint32Array(total);
    for (const d of batch) list.set(d.pieces, d.at);
    const pieceBuf = device.createBuffer({ size: list.byteLength, usage: U.STORAGE | U.COPY_DST });
    device.queue.writeBuffer(pieceBuf, 0, list);
    device.pushErrorScope("validation");
    const enc = device.createCommandEncoder();
    const pass = enc.beginComputePass();
    pass.setPipeline(pipeline);
    const maxX = limits.maxComputeWorkgroupsPerDimension;
    for (const d of batch) {
      const count = d.pieces.length / PIECE_U32;
      pass.setBindGroup(0, d.group);
      pass.setBindGroup(1, device.createBindGroup({ layout: pipeline.getBindGroupLayout(1), entries: [
        { binding: 0, resource: { buffer: pieceBuf, offset: d.at * 4, size: d.pieces.length * 4 } },
        { binding: 1, resource: { buffer: errs } }] }));
      const x = Math.min(count, maxX);
      pass.dispatchWorkgroups(x, Math.ceil(count / x));
      res.dispatches++;
    }
    pass.end();
    enc.copyBufferToBuffer(errs, 0, readback, 0, 4);
    device.queue.submit([enc.finish()]);
    const bad = await device.popErrorScope();
    batch = []; batchWords = 0; batchPieces = 0;
    if (bad) { pieceBuf.destroy(); throw new Error("WebGPU refused the run's commands: " + bad.message); }
    await readback.mapAsync(GPUMapMode.READ);
    const first = new Uint32Array(readback.getMappedRange(0, 4))[0];
    readback.unmap();
    pieceBuf.destroy();
    return first;
  };

  const read = async (src, offset) => {
    const enc = device.createCommandEncoder();
    enc.copyBufferToBuffer(src, offset, readback, 0, 4);
    device.queue.submit([enc.finish()]);
    await readback.mapAsync(GPUMapMode.READ);
    const v = new Uint32Array(readback.getMappedRange(0, 4))[0];
    readback.unmap();
    return v;
  };

  // The first bad slot found: which tensor, which word, and whose word
  // sits there instead.
  const report = async (badSlot) => {
    const [step, i] = checkedAt[badSlot];
    const r = L.root[i], b = L.buf[i];
    const rel = await read(errs, 4 * (badSlot + 1)); // word of the root
    const addr = L.first[r] + rel;
    const value = await read(gpu[b], addr * 4);
    // Whoever wrote that word after the tensor's producer did: the one
    // whose hash is there, else the last of them (a later write in the
    // same submission may have covered it since).
    let by = null, latest = -1;
    for (let j = 0; j < L.n; j++) {
      if (L.root[j] !== j || j === r || L.buf[j] !== b || addr < L.first[j] || addr >= L.end[j] ||
        ts[j].birth < ts[r].birth || ts[j].birth > step) continue;
      if (expected(j, addr - L.first[j]) === value) { by = ts[j].name; break; }
      if (latest < 0 || ts[j].birth >= ts[latest].birth) latest = j;
    }
    if (by === null && latest >= 0) by = ts[latest].name;
    res.ok = false;
    res.clobbered = { step, tensor: ts[i].name, index: i, word: addr - L.first[i], buffer: b, offset: addr * 4, by };
  };

  try {
    for (const [k, s] of order.entries()) {
      const writes = new Map(), reads = new Map();
      for (const i of work.get(s).births) { plan1(i, NONE, writes); res.tensors_written++; res.words_written += words(i); }
      for (const i of work.get(s).checks) { checkedAt.push([s, i]); plan1(i, slot++, reads); res.checks++; res.words_checked += words(i); }
      batch.push(...writes.values(), ...reads.values());
      if (batchWords >= BATCH_WORDS || batchPieces >= BATCH_PIECES || k === order.length - 1) {
        const bad = await flush();
        if (opts.onProgress) opts.onProgress({ step: s, steps });
        if (bad !== NONE) { await report(bad); break; }
      }
    }
  } finally {
    res.bindings = tileGroups.size;
    owned.forEach((b) => b.destroy());
  }
  res.ms = performance.now() - t0;
  return res;
}
