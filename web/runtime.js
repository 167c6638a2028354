// memplan's planner runtime: a pool of planner workers (worker.js running
// planner.wasm), compiled once and shared by everything on the page that
// plans. It only carries messages: which worker runs what, which answer
// wins and when the others stop is decided in Go, by the pool's first
// worker (protocol.Portfolio), which sends "route" events for the pool to
// deliver and an "outcome" that names the answer. The messages are
// wasm/protocol's (web/protocol-types.js has their shapes).
//
// A classic script that is also a module: viewer.html loads it with a
// script tag (and the single-file build inlines it), embed.js imports it.
"use strict";
(() => {
  if (globalThis.MemplanRuntime) return;

  // Each wasm's gzip in base64 and the worker's script, inlined by the
  // single-file build (memplan.html opens from file://).
  const inline = () => globalThis.memplanInline;

  async function compileWasm(url) {
    const name = url.href.slice(url.href.lastIndexOf("/") + 1);
    if (inline() && inline()[name]) {
      const gz = Uint8Array.from(atob(inline()[name]), (c) => c.charCodeAt(0));
      const raw = new Response(new Blob([gz]).stream().pipeThrough(new DecompressionStream("gzip")));
      return WebAssembly.compile(await raw.arrayBuffer());
    }
    try {
      // Compiled as it streams in.
      return await WebAssembly.compileStreaming(fetch(url));
    } catch (_) {
      // A host that serves .wasm without Content-Type application/wasm
      // breaks streaming compilation; compiling the bytes still works.
      const resp = await fetch(url);
      if (!resp.ok) throw new Error("fetching " + url.href + ": HTTP " + resp.status);
      return WebAssembly.compile(await resp.arrayBuffer());
    }
  }

  const stopped = (message) => ({ type: "error", error: { kind: "stopped", message } });

  class MemplanRuntime {
    // base: the URL of the folder holding worker.js, wasm_exec.js and
    // planner.wasm. size: the workers in the pool.
    constructor(base, size) {
      this.base = new URL(base, location.href);
      this.size = size || Math.max(1, Math.min(navigator.hardwareConcurrency || 2, 4));
      this.pool = null;
      this.module = null;
      this.plans = new Map();   // request id -> {resolve, progress, data, answers}
      this.asks = new Map();    // request id -> resolve, for one worker's answer
      // Per kind of event that follows a "planned" one ("proof", then
      // "tensors"), per worker: the last such event, and who waits for one.
      this.held = { proof: [], tensors: [] };
      this.waits = { proof: [], tensors: [] };
      this.nextID = 1 << 28;    // ids of asks, apart from the callers' plan ids
      this.fitWorker = null;
      this.blobURL = null;
    }

    // shared is one runtime for everything on this page that plans from
    // base: every <memplan-plan> of a docs page shares it.
    static shared(base) {
      const key = new URL(base, location.href).href;
      const all = (globalThis.memplanRuntimes ||= new Map());
      if (!all.has(key)) all.set(key, new MemplanRuntime(key));
      return all.get(key);
    }

    // compile starts downloading and compiling planner.wasm, once.
    compile() {
      if (!this.module) {
        this.module = compileWasm(new URL("planner.wasm", this.base));
        this.module.catch(() => { this.module = null; });
      }
      return this.module;
    }

    workerURL() {
      const text = inline() && inline()["worker.js"];
      if (text) return this.blobURL ||= URL.createObjectURL(new Blob([text], { type: "text/javascript" }));
      if (this.base.origin === location.origin) return new URL("worker.js", this.base).href;
      // A worker must come from the page's origin: a page on another
      // origin (a docs page) starts one that loads memplan's scripts.
      return this.blobURL ||= URL.createObjectURL(new Blob([
        "self.memplanBase = " + JSON.stringify(this.base.href) + ";\n" +
        "importScripts(" + JSON.stringify(new URL("wasm_exec.js", this.base).href) + ", " +
        JSON.stringify(new URL("worker.js", this.base).href) + ");\n"], { type: "text/javascript" }));
    }

    newWorker(onmessage, onfail) {
      const w = new Worker(this.workerURL());
      w.onmessage = (e) => onmessage(e.data);
      w.onerror = (e) => { e.preventDefault(); onfail("the planner stopped: " + (e.message || "a worker failed to load")); };
      this.compile().then((module) => w.postMessage({ type: "module", module }), (err) => onfail("the planner stopped: " + err));
      return w;
    }

    // start makes the pool, if there is none.
    start() {
      if (this.pool) return this.pool;
      this.pool = [];
      for (let k = 0; k < this.size; k++) this.pool.push(this.newWorker((m) => this.heard(k, m), (why) => this.failAll(why)));
      return this.pool;
    }

    failAll(message) {
      for (const r of this.plans.values()) r.resolve(stopped(message));
      for (const r of this.asks.values()) r(stopped(message));
      this.plans.clear();
      this.asks.clear();
      this.forgetTensors();
      if (this.pool) for (const w of this.pool) w.terminate();
      this.pool = null;
    }

    // plan(request, data, progress): request is a protocol.PlanRequest
    // with its id; data the file (bytes or a Blob). A promise of the
    // answer: the winning worker's "planned" event, with the plan beside
    // it and from (the worker, which keeps the plan for explain), or an
    // "error" event.
    plan(request, data, progress) {
      const pool = this.start();
      this.forgetTensors(); // the caller asks for a plan's tensors before its next plan
      return new Promise((resolve) => {
        this.plans.set(request.id, { resolve, progress, data, answers: new Map() });
        pool[0].postMessage(Object.assign({}, request, { type: "plan", pool: pool.length }));
      });
    }

    // cancel ends every plan in flight: their promises give a cancelled
    // error, the workers drop them, and no proof or tensors are awaited.
    cancel() {
      for (const r of this.plans.values()) r.resolve({ type: "error", error: { kind: "cancelled", message: "superseded by a newer request" } });
      this.plans.clear();
      this.forgetTensors();
      if (this.pool) for (const w of this.pool) w.postMessage({ type: "cancel" });
    }

    // ask sends one worker a message (explain, export, warm, diff) and
    // gives a promise of its answer.
    ask(to, msg, transfer) {
      const pool = this.start();
      const id = this.nextID++;
      return new Promise((resolve) => {
        this.asks.set(id, resolve);
        pool[Math.min(to, pool.length - 1)].postMessage(Object.assign({}, msg, { id }), transfer || []);
      });
    }

    // fit runs a "fit" request (the largest size that fits) in a worker
    // of its own, so that its many plans neither wait for the pool's nor
    // cancel them; a newer one supersedes the one in flight.
    fit(request, data) {
      if (!this.fitWorker) {
        const w = this.fitWorker = this.newWorker((m) => {
          if (m.type === "fitted" || m.type === "error") {
            const r = this.fitWaiting;
            if (r && (!m.id || m.id === r.id)) { this.fitWaiting = null; r.resolve(m); }
          }
        }, (why) => {
          w.terminate();
          if (this.fitWorker === w) this.fitWorker = null;
          const r = this.fitWaiting;
          this.fitWaiting = null;
          if (r) r.resolve(stopped(why));
        });
      }
      if (this.fitWaiting) this.fitWaiting.resolve({ type: "error", error: { kind: "cancelled", message: "superseded" } });
      const id = this.nextID++;
      return new Promise((resolve) => {
        this.fitWaiting = { id, resolve };
        this.fitWorker.postMessage(Object.assign({}, request, { type: "fit", id, data }));
      });
    }

    // proof(from, answer) and tensors(from, answer): promises of the
    // "proof" event that worker from sends after its "planned" answer
    // number answer ({error} when the plan failed it), and of the
    // "tensors" event ({data}) that follows a plan's proof; null when it no
    // longer can come.
    proof(from, answer) { return this.after("proof", from, answer); }
    tensors(from, answer) { return this.after("tensors", from, answer); }

    after(kind, from, answer) {
      const held = this.held[kind], waits = this.waits[kind];
      const t = held[from];
      if (t && t.answer === answer) {
        held[from] = null;
        return Promise.resolve(t);
      }
      if (!this.pool || !this.pool[from] || (t && t.answer > answer)) return Promise.resolve(null);
      if (waits[from]) waits[from].resolve(null);
      return new Promise((resolve) => { waits[from] = { answer, resolve }; });
    }

    forgetTensors() {
      for (const kind of Object.keys(this.waits)) {
        for (const w of this.waits[kind]) if (w) w.resolve(null);
        this.waits[kind].length = this.held[kind].length = 0;
      }
    }

    // heard takes worker k's message.
    heard(k, m) {
      if (m.type === "proof" || m.type === "tensors") {
        const waits = this.waits[m.type], w = waits[k];
        if (w && w.answer === m.answer) {
          waits[k] = null;
          w.resolve(m);
        } else {
          this.held[m.type][k] = m;
        }
        return;
      }
      if (!m.id) { // a worker itself failed
        if (m.type === "error" && m.error && m.error.kind === "stopped") this.failAll(m.error.message);
        return;
      }
      const ask = this.asks.get(m.id);
      if (ask) {
        if (m.type !== "progress") { this.asks.delete(m.id); ask(m); }
        return;
      }
      const r = this.plans.get(m.id);
      if (!r || !this.pool) return;
      switch (m.type) {
        case "progress":
          if (r.progress) r.progress(m.message);
          return;
        case "route": { // the coordinator's message for a worker
          const msg = m.route.message;
          if (msg.type === "plan") msg.data = r.data;
          this.pool[m.route.to].postMessage(msg);
          return;
        }
        case "outcome": {
          this.plans.delete(m.id);
          const o = m.outcome;
          if (o.error) { r.resolve({ type: "error", id: m.id, error: o.error }); return; }
          const a = r.answers.get(o.from);
          if (!a) { r.resolve(stopped("the planner lost its answer")); return; }
          a.from = o.from;
          if (o.millis) a.millis = o.millis;
          r.resolve(a);
          return;
        }
      }
      // A worker's answer is kept; what the coordinator must hear of it,
      // Go put in heard (the first worker hears its own).
      if (m.type === "planned") r.answers.set(k, m);
      if (m.heard) this.pool[0].postMessage({ type: "heard", id: m.id, from: k, event: m.heard });
    }
  }

  // compileWasm compiles a wasm program beside base (the viewer's own too).
  MemplanRuntime.compileWasm = (url, base) => compileWasm(new URL(url, base || location.href));
  globalThis.MemplanRuntime = MemplanRuntime;
})();
