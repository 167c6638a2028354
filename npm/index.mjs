// memplan as a module: plan the memory of an ML compute graph (ONNX,
// memplan's graph JSON, a buffer CSV) into one arena, in a browser (a
// module worker) or in Node 20 and later (a worker thread). Every
// function is async and takes an AbortSignal as options.signal.
//
// This file only carries messages. The planner is Go's (planner.wasm,
// memplan's browser worker, wasm/worker): it reads the options object by
// memplan's option table, refuses files over its size limit, plans,
// proves each plan and writes the record; the messages are
// wasm/protocol's worker requests and events.

const isNode = typeof window === "undefined" && typeof process === "object" && !!(process.versions && process.versions.node);
const encoder = new TextEncoder();
const decoder = new TextDecoder();

// MemplanError is memplan's error: message, and where and what it is as
// fields (kind, file, line, column, path, node, need, hint, symbols;
// fit when a plan does not fit its device), never a string to parse.
export class MemplanError extends Error {
  constructor(e, fit) {
    super(e && e.message ? e.message : "memplan failed");
    this.name = "MemplanError";
    for (const [k, v] of Object.entries(e || {})) if (k !== "message") this[k] = v;
    if (fit) this.fit = fit;
  }
}

let compiled = null;

// compile compiles planner.wasm once; every worker instantiates it.
function compile() {
  if (!compiled) {
    const url = new URL("./planner.wasm", import.meta.url);
    compiled = (async () => {
      if (isNode) {
        const { readFile } = await import("node:fs/promises");
        return WebAssembly.compile(await readFile(url));
      }
      try {
        return await WebAssembly.compileStreaming(fetch(url));
      } catch (_) {
        // A host that serves .wasm without application/wasm breaks
        // streaming compilation; compiling the bytes still works.
        const resp = await fetch(url);
        if (!resp.ok) throw new Error("fetching " + url.href + ": HTTP " + resp.status);
        return WebAssembly.compile(await resp.arrayBuffer());
      }
    })();
    compiled.catch(() => { compiled = null; });
  }
  return compiled;
}

async function spawn(onmessage, onfail) {
  const url = new URL("./worker.mjs", import.meta.url);
  if (isNode) {
    const { Worker } = await import("node:worker_threads");
    const w = new Worker(url);
    w.on("message", onmessage);
    w.on("error", (e) => onfail("the planner stopped: " + (e && e.message ? e.message : e)));
    w.on("exit", (code) => onfail("the planner stopped (its thread exited with " + code + ")"));
    return { post: (m) => w.postMessage(m), terminate: () => w.terminate(), ref: () => w.ref(), unref: () => w.unref() };
  }
  // A worker must come from the page's origin: from another one (the
  // package on a CDN), a module script of the page's imports it.
  let src = url.href;
  if (typeof location !== "undefined" && url.origin !== location.origin) {
    src = URL.createObjectURL(new Blob(["import " + JSON.stringify(url.href) + ";\n"], { type: "text/javascript" }));
  }
  const w = new Worker(src, { type: "module" });
  w.onmessage = (e) => onmessage(e.data);
  w.onerror = (e) => {
    if (e.preventDefault) e.preventDefault();
    onfail("the planner stopped: " + (e.message || "its worker failed to load"));
  };
  return { post: (m) => w.postMessage(m), terminate: () => w.terminate(), ref() {}, unref() {} };
}

// The planner: one worker, one call at a time (a newer request would
// supersede the one in flight). Aborting a call ends its worker; the
// next call starts another from the compiled module.
class Planner {
  constructor() {
    this.w = null;
    this.starting = null;
    this.handlers = new Map();
    this.nextID = 1;
    this.queue = Promise.resolve();
  }

  worker() {
    if (!this.starting) {
      this.starting = (async () => {
        const module = await compile();
        const w = await spawn((m) => this.heard(m), (why) => { if (this.w === w) this.failed(why); });
        this.w = w;
        w.post({ type: "module", module });
        return w;
      })();
      this.starting.catch(() => { this.starting = null; });
    }
    return this.starting;
  }

  heard(m) {
    if (!m || !m.id) { // the worker itself failed
      if (m && m.type === "error" && m.error && m.error.kind === "stopped") this.failed(m.error.message);
      return;
    }
    const h = this.handlers.get(m.id);
    if (h) h(m);
  }

  failed(why) {
    const hs = [...this.handlers.values()];
    this.handlers.clear();
    this.stop();
    for (const h of hs) h({ type: "error", error: { kind: "stopped", message: why } });
  }

  stop() {
    const w = this.w;
    this.w = null;
    this.starting = null;
    if (w) w.terminate();
  }

  // run runs body(ask) after the calls before it. ask(msg, done, progress)
  // posts msg under a new id and resolves with the first event for it
  // that done accepts, or rejects with its error.
  run(signal, body) {
    const job = this.queue.then(async () => {
      if (signal) signal.throwIfAborted();
      const w = await this.worker();
      w.ref();
      const ids = [];
      let onAbort = null;
      const aborted = new Promise((_, reject) => {
        if (!signal) return;
        onAbort = () => { this.stop(); reject(signal.reason); };
        // Aborted while the worker started: no event will come.
        if (signal.aborted) onAbort();
        else signal.addEventListener("abort", onAbort, { once: true });
      });
      const ask = (msg, done, progress) => new Promise((resolve, reject) => {
        const id = this.nextID++;
        ids.push(id);
        this.handlers.set(id, (m) => {
          if (m.type === "progress") {
            if (progress) progress(m.message);
            return;
          }
          if (m.type === "error" || m.error) {
            this.handlers.delete(id);
            reject(new MemplanError(m.error, m.fit));
            return;
          }
          if (done(m)) {
            this.handlers.delete(id);
            resolve(m);
          }
        });
        if (!this.w) { reject(new MemplanError({ kind: "stopped", message: "the planner stopped" })); return; }
        this.w.post(Object.assign({}, msg, { id }));
      });
      try {
        return await Promise.race([body(ask), aborted]);
      } finally {
        if (onAbort) signal.removeEventListener("abort", onAbort);
        for (const id of ids) this.handlers.delete(id);
        if (this.w) this.w.unref();
      }
    });
    this.queue = job.catch(() => {});
    if (!signal) return job;
    // A call still waiting for the ones before it ends at once.
    let onEarly = null;
    const early = new Promise((_, reject) => {
      onEarly = () => reject(signal.reason);
      signal.addEventListener("abort", onEarly, { once: true });
    });
    job.finally(() => signal.removeEventListener("abort", onEarly)).catch(() => {});
    return Promise.race([job, early]);
  }
}

const planner = new Planner();

const is = (type) => (m) => m.type === type;

// input reads one file the caller gave (bytes, an ArrayBuffer, a Blob or
// File, a string, in Node a file: URL, and for a record the object plan
// returned), after asking the planner whether its size may be read.
async function input(ask, data, name, script, what) {
  let size, read;
  if (typeof data === "string") {
    const b = encoder.encode(data);
    size = b.length;
    read = () => b;
  } else if (data instanceof ArrayBuffer) {
    size = data.byteLength;
    read = () => new Uint8Array(data);
  } else if (ArrayBuffer.isView(data)) {
    size = data.byteLength;
    read = () => new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  } else if (typeof Blob !== "undefined" && data instanceof Blob) {
    size = data.size;
    read = async () => new Uint8Array(await data.arrayBuffer());
  } else if (isNode && data instanceof URL && data.protocol === "file:") {
    const { stat, readFile } = await import("node:fs/promises");
    size = (await stat(data)).size;
    read = async () => new Uint8Array(await readFile(data));
  } else if (data && typeof data === "object" && !Array.isArray(data)) {
    const b = encoder.encode(JSON.stringify(data));
    size = b.length;
    read = () => b;
  } else {
    throw new TypeError("memplan: " + (what ? what + ": " : "") + "want the file as bytes, an ArrayBuffer, a Blob, a string or a plan record object");
  }
  // Refused by its size before a byte of it is read (the planner's
  // limit, as the page's, or the options' maxMemory, which the planner
  // reads).
  await ask({ type: "check", name, size, script }, is("checked"));
  return { name, bytes: await read() };
}

// nameOf is the file's name: the caller's, a File's, a file: URL's; a
// record's; else one without an extension, and the planner knows the
// file by its first bytes where it can (ONNX, JSON).
function nameOf(data, name, otherwise) {
  if (name) return name;
  if (typeof File !== "undefined" && data instanceof File && data.name) return data.name;
  if (data instanceof URL) return decodeURIComponent(data.pathname.slice(data.pathname.lastIndexOf("/") + 1));
  if (data && typeof data === "object" && data.format && typeof data.format === "string") return "plan.json";
  return otherwise;
}

// planned plans a file (a record: read and proven as it is) and gives
// the worker's "planned" event, its plan in planner's binary form, once
// its proof has come.
async function planned(ask, msg, progress) {
  let answer = null;
  await ask(msg, (m) => {
    if (m.type === "planned") { answer = m; return false; }
    return m.type === "proof" && answer !== null && m.answer === answer.answer;
  }, progress);
  return answer;
}

function split(options) {
  const { name, signal, onProgress, forward, forwardName, ...script } = options || {};
  return { name, signal, onProgress, forward, forwardName, script };
}

// forwardOf reads a call's forward graph (options.forward, named by
// options.forwardName), for the request's forward and forward_name; {}
// without one.
async function forwardOf(ask, s) {
  if (s.forward === undefined || s.forward === null) return {};
  const f = await input(ask, s.forward, nameOf(s.forward, s.forwardName, "forward"), s.script, "forward");
  return { forward: f.bytes, forward_name: f.name };
}

/**
 * plan plans a file: the plan record, the object `memplan plan --json`
 * writes.
 */
export function plan(data, options) {
  const s = split(options);
  const { name, signal, onProgress, script } = s;
  return planner.run(signal, async (ask) => {
    const file = await input(ask, data, nameOf(data, name, "input"), script);
    const fwd = await forwardOf(ask, s);
    const p = await planned(ask, { type: "plan", name: file.name, data: file.bytes, script, ...fwd }, onProgress);
    const out = await ask({ type: "export", what: "plan", name: file.name, plan: p.plan }, is("exported"));
    return JSON.parse(decoder.decode(out.data));
  });
}

/**
 * verify judges a plan record as a plan of its source, as `memplan
 * verify` does: {ok, errors}, each error a MemplanError saying where.
 */
export function verify(record, data, options) {
  const s = split(options);
  const { name, signal, script } = s;
  const recordName = (options && options.recordName) || "plan.json";
  delete script.recordName;
  return planner.run(signal, async (ask) => {
    const rec = await input(ask, record, recordName, script);
    const src = await input(ask, data, nameOf(data, name, "input"), script);
    const fwd = await forwardOf(ask, s);
    const v = await ask({ type: "verify", name: src.name, data: src.bytes, record: rec.name, plan: rec.bytes, script, ...fwd }, is("verified"));
    const errors = (v.errors || []).map((e) => new MemplanError(e));
    return { ok: errors.length === 0, errors };
  });
}

/**
 * fit finds the largest value of options.symbol for which the file's
 * plan fits options.webgpu's device, with every trial, as `memplan fit`.
 */
export function fit(data, options) {
  const s = split(options);
  const { name, signal, onProgress, script } = s;
  const symbol = script.symbol;
  delete script.symbol;
  return planner.run(signal, async (ask) => {
    const file = await input(ask, data, nameOf(data, name, "input"), script);
    const fwd = await forwardOf(ask, s);
    const m = await ask({ type: "fit", name: file.name, data: file.bytes, symbol, script, ...fwd }, is("fitted"), onProgress);
    return m.largest;
  });
}

/**
 * explain says why tensor lives when and sits where it does in the
 * file's plan (a model is planned first; a record is taken as it is).
 */
export function explain(data, tensor, options) {
  const s = split(options);
  const { name, signal, onProgress, script } = s;
  return planner.run(signal, async (ask) => {
    const file = await input(ask, data, nameOf(data, name, "input"), script);
    const fwd = await forwardOf(ask, s);
    const p = await planned(ask, { type: "plan", name: file.name, data: file.bytes, script, ...fwd }, onProgress);
    // The worker holds the plan it made under its request's id; the plan
    // travels too, for a worker that no longer holds it.
    const m = await ask({ type: "explain", name: file.name, key: p.id, tensor: String(tensor), plan: p.plan }, is("explained"));
    return m.explanation;
  });
}

/**
 * diff compares two plans, each a file planned with its options or a
 * plan record taken as it is: the record `memplan diff --json` writes.
 */
export function diff(a, b, options, optionsB) {
  const sa = split(options), sb = split(optionsB === undefined ? options : optionsB);
  return planner.run(sa.signal || sb.signal, async (ask) => {
    const fa = await input(ask, a, nameOf(a, sa.name, "a"), sa.script);
    const fb = await input(ask, b, nameOf(b, sb.name, "b"), sb.script);
    const fwdA = await forwardOf(ask, sa), fwdB = await forwardOf(ask, sb);
    const m = await ask({
      type: "diff",
      a: { name: fa.name, data: fa.bytes, script: sa.script, ...fwdA },
      b: { name: fb.name, data: fb.bytes, script: sb.script, ...fwdB },
    }, is("diffed"));
    return m.diff;
  });
}

/**
 * svg draws a plan record as the widget's picture: SVG text. width and
 * height in CSS pixels (0: the picture's own), theme "light" or "dark",
 * budget a line across it in bytes.
 */
export function svg(record, options) {
  const o = options || {};
  return planner.run(o.signal, async (ask) => {
    const file = await input(ask, record, nameOf(record, o.name, "plan.json"));
    const p = await planned(ask, { type: "plan", name: file.name, data: file.bytes });
    const base = file.name.replace(/\.json$/i, "").replace(/\.plan$/i, "");
    const m = await ask({ type: "export", what: "svg", name: base, plan: p.plan, width: o.width || 0, height: o.height || 0, theme: o.theme || "", budget: o.budget || 0 }, is("exported"));
    return decoder.decode(m.data);
  });
}

/** maxInputBytes is the largest file the planner reads. */
export function maxInputBytes(options) {
  const o = options || {};
  return planner.run(o.signal, async (ask) => (await ask({ type: "check", name: "", size: 0 }, is("checked"))).limit);
}

/** close ends the planner's worker; a later call starts another. */
export function close() {
  planner.stop();
}
