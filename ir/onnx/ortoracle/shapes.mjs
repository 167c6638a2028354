// shapes.mjs runs an ONNX model with onnxruntime's CPU execution provider
// and prints the dims, element type and byte size of every graph output,
// as the oracle for memplan's ONNX shape inference tests.
//
// Request (JSON, on stdin, or as the first argument), one model:
//   {"model": "m.onnx",
//    "inputs": [{"name": "x", "dtype": "float16", "dims": [1, 4],
//                "values": [...] | "fill": 1}],       // default: zeros
//    "outputs": ["y"],                                 // default: all
//    "shapes": {"q": "q_shape"},                       // 4-bit outputs, read
//                                                      // through a Shape output
//    "optimization": "disabled"}                       // default: disabled
// dtype is an ONNX TensorProto element type name (float, float16, int64,
// ...). int64 values may be given as numbers or decimal strings.
//
// or many, run in one process: {"requests": [request, ...]}.
//
// Answer on stdout: {"ort": version, "outputs": [{"name", "elem", "dtype",
// "dims", "bytes"}]}, elem being the ONNX element type number, bytes the
// size of the data onnxruntime returned. A failure prints {"error":
// message} and exits with status 1. For many requests: {"ort": version,
// "answers": [answer, ...]}, each answer holding outputs or its own error;
// the exit status is 1 if any failed.

import { readFileSync } from 'node:fs';
import ort from 'onnxruntime-node';

// ONNX element type number → [ONNX name, onnxruntime-node tensor type].
const elems = {
  1: ['float', 'float32'],
  2: ['uint8', 'uint8'],
  3: ['int8', 'int8'],
  4: ['uint16', 'uint16'],
  5: ['int16', 'int16'],
  6: ['int32', 'int32'],
  7: ['int64', 'int64'],
  9: ['bool', 'bool'],
  10: ['float16', 'float16'],
  11: ['double', 'float64'],
  12: ['uint32', 'uint32'],
  13: ['uint64', 'uint64'],
  21: ['uint4', 'uint4'],
  22: ['int4', 'int4'],
};
const byOnnxName = new Map(Object.entries(elems).map(([n, [onnx, js]]) => [onnx, { elem: +n, js }]));
const byJsName = new Map(Object.entries(elems).map(([n, [onnx, js]]) => [js, { elem: +n, onnx }]));

const arrays = {
  float32: Float32Array, uint8: Uint8Array, int8: Int8Array, uint16: Uint16Array,
  int16: Int16Array, int32: Int32Array, int64: BigInt64Array, bool: Uint8Array,
  float16: Uint16Array, float64: Float64Array, uint32: Uint32Array, uint64: BigUint64Array,
};

// Refusal is a request's own failure, reported as its answer's error.
class Refusal extends Error {}

function refuse(msg) {
  throw new Refusal(msg);
}

// f16bits converts a number to IEEE half-precision bits (round to nearest even).
function f16bits(v) {
  const f = new Float32Array([v]);
  const x = new Uint32Array(f.buffer)[0];
  const sign = (x >>> 16) & 0x8000;
  const exp = (x >>> 23) & 0xff;
  let mant = x & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  let e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - e;
    let h = mant >>> shift;
    const rem = mant & ((1 << shift) - 1), half = 1 << (shift - 1);
    if (rem > half || (rem === half && (h & 1))) h++;
    return sign | h;
  }
  let h = (e << 10) | (mant >>> 13);
  const rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem === 0x1000 && (h & 1))) h++;
  return sign | h;
}

function numel(dims, where) {
  let n = 1;
  for (const d of dims) {
    if (!Number.isSafeInteger(d) || d < 0) refuse(`${where}: dim ${JSON.stringify(d)} is not a non-negative integer`);
    n *= d;
    if (n > 1 << 28) refuse(`${where}: ${dims.join('x')} is too many elements for a test feed`);
  }
  return n;
}

function feed(spec, i) {
  const where = `inputs[${i}] (${JSON.stringify(spec.name)})`;
  if (typeof spec.name !== 'string') refuse(`inputs[${i}]: no name`);
  const t = byOnnxName.get(spec.dtype);
  if (!t || !arrays[t.js]) refuse(`${where}: dtype ${JSON.stringify(spec.dtype)} cannot be fed`);
  if (!Array.isArray(spec.dims)) refuse(`${where}: dims is not a list`);
  const n = numel(spec.dims, where);
  const data = new arrays[t.js](n);
  let vals = null;
  if (spec.values !== undefined) {
    if (!Array.isArray(spec.values) || spec.values.length !== n) {
      refuse(`${where}: values must list ${n} elements`);
    }
    vals = spec.values;
  } else if (spec.fill !== undefined) {
    vals = new Array(n).fill(spec.fill);
  }
  if (vals) {
    for (let k = 0; k < n; k++) {
      const v = vals[k];
      if (t.js === 'int64' || t.js === 'uint64') data[k] = BigInt(v);
      else if (t.js === 'float16') data[k] = f16bits(Number(v));
      else if (t.js === 'bool') data[k] = v ? 1 : 0;
      else data[k] = Number(v);
    }
  }
  return new ort.Tensor(t.js, data, spec.dims);
}

async function run(req) {
  if (typeof req !== 'object' || req === null || typeof req.model !== 'string') refuse('request has no model path');
  const feeds = {};
  (req.inputs ?? []).forEach((spec, i) => {
    feeds[spec.name] = feed(spec, i);
  });
  let session;
  try {
    session = await ort.InferenceSession.create(req.model, {
      executionProviders: ['cpu'],
      graphOptimizationLevel: req.optimization ?? 'disabled',
      logSeverityLevel: 3,
    });
  } catch (e) {
    refuse(`loading ${req.model}: ${e.message}`);
  }
  try {
    const names = req.outputs ?? session.outputNames;
    // onnxruntime-node cannot return 4-bit tensors (it aborts the process),
    // so such an output is read through a Shape node the model adds.
    const shapes = req.shapes ?? {};
    let res;
    try {
      res = await session.run(feeds, names.filter((n) => !(n in shapes)));
    } catch (e) {
      refuse(`running ${req.model}: ${e.message}`);
    }
    return {
      outputs: names.map((name) => {
        if (name in shapes) return viaShape(session, name, res[shapes[name]]);
        const t = res[name];
        const m = byJsName.get(t.type);
        if (!m) refuse(`output ${name}: element type ${t.type} has no ONNX number here`);
        return { name, elem: m.elem, dtype: m.onnx, dims: t.dims, bytes: t.data.byteLength };
      }),
    };
  } finally {
    await session.release();
  }
}

// viaShape describes output name from the value of its Shape: the element
// type is the one onnxruntime's session gives the output, the byte size
// that of ONNX's packing (4-bit elements two to a byte).
function viaShape(session, name, shape) {
  if (!shape || shape.type !== 'int64') refuse(`output ${name}: its shape output is missing or not int64`);
  const meta = session.outputMetadata[session.outputNames.indexOf(name)];
  const m = meta && byJsName.get(meta.type);
  if (!m) refuse(`output ${name}: no element type in the session's metadata`);
  const dims = Array.from(shape.data, Number);
  const n = dims.reduce((a, b) => a * b, 1);
  const bits = { 21: 4, 22: 4 }[m.elem];
  if (!bits) refuse(`output ${name}: ${m.onnx} is read directly, not through its shape`);
  return { name, elem: m.elem, dtype: m.onnx, dims, bytes: Math.ceil((n * bits) / 8), viaShape: true };
}

// answer runs one request, turning any failure into its error.
async function answer(req) {
  try {
    return await run(req);
  } catch (e) {
    return { error: e instanceof Refusal ? e.message : String(e?.stack ?? e) };
  }
}

async function main() {
  const version = ort.env.versions.node ?? ort.env.versions.common;
  let text = process.argv[2];
  if (text === undefined) text = readFileSync(0, 'utf8');
  let req;
  try {
    req = JSON.parse(text);
  } catch (e) {
    req = { error: `request is not JSON: ${e.message}` };
  }
  let out, failed;
  if (req.error) {
    out = { ort: version, error: req.error };
    failed = true;
  } else if (Array.isArray(req.requests)) {
    const answers = [];
    for (const r of req.requests) answers.push(await answer(r));
    out = { ort: version, answers };
    failed = answers.some((a) => a.error !== undefined);
  } else {
    out = { ort: version, ...(await answer(req)) };
    failed = out.error !== undefined;
  }
  process.stdout.write(JSON.stringify(out) + '\n');
  process.exitCode = failed ? 1 : 0;
}

main().catch((e) => {
  process.stdout.write(JSON.stringify({ error: String(e?.stack ?? e) }) + '\n');
  process.exitCode = 1;
});
