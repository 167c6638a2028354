// Starts the memplan viewer wasm and its planner workers. The canvas is
// ebiten's; this script loads the module, runs the workers, shows the
// viewer's status and the key help (the keys are Go's, from ready).
"use strict";
(function () {
  // Ebiten draws into its own textures and copies the finished picture
  // to the canvas, so the canvas's multisampling only adds work: with
  // WebGL on a software rasterizer (SwiftShader, GPU-less machines) that
  // copy then rasterizes four samples a pixel and resolves them, which
  // measured as the largest fixed cost of a frame. Ask for none before
  // ebiten creates its context.
  const getContext = HTMLCanvasElement.prototype.getContext;
  HTMLCanvasElement.prototype.getContext = function (type, attrs) {
    if (type === "webgl2" || type === "webgl") attrs = Object.assign({}, attrs, { antialias: false });
    return getContext.call(this, type, attrs);
  };
  const embedded = window.parent !== window;
  const status = document.getElementById("status");
  const keys = document.getElementById("keys");
  // Colours: the canvas's are Go's, in the theme named here. The system's
  // scheme until the host sends a "theme" message (memplan's app does);
  // after that, the host's. <html data-theme> paints the page to match.
  const light = matchMedia("(prefers-color-scheme: light)");
  let hostTheme = false;
  function theme(name) {
    document.documentElement.dataset.theme = name;
    if (window.memplan) window.memplan.send({ type: "theme", name });
  }
  const systemTheme = () => light.matches ? "light" : "dark";
  document.documentElement.dataset.theme = systemTheme();
  light.addEventListener("change", () => { if (!hostTheme) theme(systemTheme()); });
  window.addEventListener("memplan", (e) => {
    if (e.detail.type === "ready" && !hostTheme) theme(document.documentElement.dataset.theme);
  });
  window.addEventListener("memplan", (e) => {
    const m = e.detail;
    if (m.type === "ready") {
      document.getElementById("viewer-keys").replaceChildren(...(m.keys || []).map((b) => {
        const line = document.createElement("div");
        const kbd = document.createElement("kbd");
        kbd.textContent = b.label;
        line.append(kbd, " ", b.help);
        return line;
      }));
    }
    if (m.type === "ready" || m.type === "summary") status.textContent = "";
    if (m.type === "busy") status.textContent = "planning " + m.file + "…";
    if (m.type === "error") status.textContent = "";
  });
  // Tab moves the focus on, out of the canvas too. Ebiten cancels every
  // keydown on its canvas, Tab's included, which traps the keyboard there:
  // stop Tab on its way down, before it reaches the canvas (nor is it a
  // key for Go).
  for (const type of ["keydown", "keyup"]) {
    window.addEventListener(type, (e) => { if (e.key === "Tab") e.stopPropagation(); }, { capture: true });
  }
  // A focus ring on the canvas when the keyboard brought the focus, not
  // a click: ebiten cancels the mouse's own focusing and focuses the
  // canvas from script, which :focus-visible then takes for the keyboard.
  // Nor when ebiten focuses it on load (standalone): nobody acted yet.
  let pointing = false, acted = embedded;
  window.addEventListener("pointerdown", () => { acted = pointing = true; setTimeout(() => { pointing = false; }); }, { capture: true });
  window.addEventListener("keydown", () => { acted = true; }, { capture: true });
  document.addEventListener("focusin", (e) => {
    if (e.target instanceof HTMLCanvasElement) e.target.classList.toggle("keyboard-focus", acted && !pointing);
  });
  document.addEventListener("focusout", (e) => {
    if (e.target instanceof HTMLCanvasElement) e.target.classList.remove("keyboard-focus");
  });
  // Keys go to the viewer as commands, one per keydown (auto-repeat
  // included): ebiten samples keys once a frame and would miss a quick tap.
  window.addEventListener("keydown", (e) => {
    if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === "o" && window.parent !== window) {
      // The host's file picker, even when the canvas has the focus.
      e.preventDefault();
      window.parent.postMessage({ source: "memplan", type: "open" }, "*");
      return;
    }
    if (e.ctrlKey || e.metaKey) return;
    if (e.key === "?") keys.classList.toggle("open");
    if (e.key === "Escape") keys.classList.remove("open");
    if (window.memplan) window.memplan.send({ type: "key", key: e.key, shift: e.shiftKey });
  });
  window.addEventListener("message", (e) => {
    if (e.source !== window.parent || !e.data) return;
    if (e.data.type === "help") keys.classList.toggle("open", !!e.data.open);
    if (e.data.type === "theme" && typeof e.data.name === "string") { // Go reads it too
      hostTheme = true;
      document.documentElement.dataset.theme = e.data.name;
    }
  });
  // Files dragged over the canvas: inside the app, tell the host page,
  // which covers the canvas and takes the drop; standalone, load the
  // dropped file here.
  window.addEventListener("dragenter", (e) => {
    e.preventDefault();
    if (embedded) window.parent.postMessage({ source: "memplan", type: "dragenter" }, "*");
  });
  window.addEventListener("dragover", (e) => e.preventDefault());
  window.addEventListener("drop", async (e) => {
    e.preventDefault();
    const f = e.dataTransfer && e.dataTransfer.files[0];
    if (f && window.memplan) window.memplan.send({ type: "load", name: f.name, data: await f.arrayBuffer() });
  });
  // The wheel, as on an embedded map: over an embedded viewer it zooms
  // only once the viewer has the focus (a click in it) or with Ctrl/⌘
  // held; otherwise the event never reaches ebiten, which would cancel
  // it, and the host page scrolls. viewer.html?wheel=always (memplan's own
  // app, where nothing scrolls) zooms at once.
  const wheelAlways = !embedded || new URLSearchParams(location.search).get("wheel") === "always";
  const hint = document.getElementById("hint");
  let hintTimer = 0;
  window.addEventListener("wheel", (e) => {
    if (wheelAlways || e.ctrlKey || e.metaKey || document.hasFocus()) return;
    e.stopPropagation(); // capture phase, on window: before ebiten's listener on its canvas
    hint.classList.add("open");
    clearTimeout(hintTimer);
    hintTimer = setTimeout(() => hint.classList.remove("open"), 1500);
  }, { capture: true });
  window.addEventListener("focus", () => hint.classList.remove("open"));
  document.documentElement.addEventListener("mouseleave", () => {
    if (window.memplan) window.memplan.send({ type: "leave" });
  });
  // The planner runs in Web Workers (worker.js with planner.wasm), so a
  // long plan never holds up the canvas. The command line runs auto's
  // portfolio on every core; here each worker has one thread, so auto's
  // requests go to a pool of workers, each with a shard of the
  // portfolio, and the smallest arena wins, ties to the lower member:
  // the plan the command line makes. Other strategies use one worker.
  // The viewer's Go calls memplanPlanner.plan(id, name, bytes,
  // optionsJSON, onProgress) and gets a promise of the winning answer,
  // {type: "planned", plan, ...} or {type: "error", error}. A worker
  // that dies answers with a "stopped" error; the next request starts a
  // fresh pool.
  const poolSize = Math.max(1, Math.min(navigator.hardwareConcurrency || 2, 4));
  let pool = null, module = null;
  const pending = new Map(); // id -> request state
  function compile() {
    if (!module) {
      const url = "planner.wasm";
      module = WebAssembly.compileStreaming(fetch(url)).catch(async () => {
        // A host that serves .wasm without Content-Type application/wasm
        // breaks streaming compilation; compiling the bytes still works.
        const resp = await fetch(url);
        if (!resp.ok) throw new Error("fetching " + url + ": HTTP " + resp.status);
        return WebAssembly.compile(await resp.arrayBuffer());
      });
      module.catch(() => { module = null; });
    }
    return module;
  }
  function failAll(message) {
    for (const r of pending.values()) r.resolve({ type: "error", error: { kind: "stopped", message } });
    pending.clear();
    if (pool) for (const w of pool) w.terminate();
    pool = null;
  }
  function startPool() {
    if (pool) return pool;
    pool = [];
    for (let k = 0; k < poolSize; k++) {
      const w = new Worker("worker.js");
      w.onmessage = (e) => answer(e.data);
      w.onerror = (e) => { e.preventDefault(); failAll("the planner stopped: " + (e.message || "a worker failed to load")); };
      pool.push(w);
    }
    compile().then((mod) => { if (pool) for (const w of pool) w.postMessage({ type: "module", module: mod }); },
      (err) => failAll("the planner stopped: " + err));
    return pool;
  }
  function answer(m) {
    if (m.type === "progress") {
      const r = pending.get(m.id);
      if (r && r.progress) r.progress(m.message);
      return;
    }
    if (m.type !== "planned" && m.type !== "error") return;
    if (!m.id) { // a worker itself failed
      if (m.error && m.error.kind === "stopped") failAll(m.error.message);
      return;
    }
    const r = pending.get(m.id);
    if (!r) return;
    if (m.type === "error") { // every shard reads the same file: the first error is the answer
      pending.delete(m.id);
      r.resolve(m);
      return;
    }
    if (!r.best || m.arena < r.best.arena || (m.arena === r.best.arena && m.member < r.best.member)) r.best = m;
    r.left--;
    // Member 0 at the bound wins whatever the other shards find: stop
    // them, or they keep a core busy while the page shows the plan.
    if (r.left === 0 || (r.best.optimal && r.best.member === 0)) {
      pending.delete(m.id);
      if (r.left > 0 && pool) for (let k = 0; k < r.shards; k++) pool[k].postMessage({ type: "cancel", id: m.id });
      r.resolve(r.best);
    }
  }
  window.memplanPlanner = {
    plan(id, name, data, options, progress) {
      const workers = startPool();
      const opts = JSON.parse(options);
      const shards = !opts.strategy || opts.strategy === "auto" ? workers.length : 1;
      return new Promise((resolve) => {
        pending.set(id, { resolve, progress, left: shards, shards, best: null });
        for (let k = 0; k < shards; k++) {
          workers[k].postMessage({ type: "plan", id, name, data, options: opts, shard: k, shards });
        }
      });
    },
    cancel() { if (pool) for (const w of pool) w.postMessage({ type: "cancel" }); },
  };
  // Start the workers once the first picture is up, so the first file
  // dropped plans at once without delaying that picture.
  window.addEventListener("memplan", (e) => {
    if (e.detail.type === "summary") setTimeout(startPool, 0);
  });

  // If the Go program ends (it returned, panicked or trapped), nothing in
  // it can report that: say so here, to the host and on the canvas. The
  // first panic or fatal error line Go wrote to stderr says why.
  let reason = "", partial = "";
  const writeSync = globalThis.fs.writeSync.bind(globalThis.fs);
  const decoder = new TextDecoder();
  globalThis.fs.writeSync = (fd, buf) => {
    if (fd === 2 && !reason) {
      const lines = (partial + decoder.decode(buf)).split("\n");
      partial = lines.pop().slice(-4096);
      reason = lines.find((l) => /^(panic|fatal error): /.test(l)) || "";
    }
    return writeSync(fd, buf);
  };
  let stopped = false;
  function stop(why) {
    if (stopped) return;
    stopped = true;
    const message = reason ? reason + " (" + why + ")" : why;
    status.textContent = "the planner stopped: " + message + " — reload the page";
    const ev = { source: "memplan", type: "stopped", message };
    if (embedded) window.parent.postMessage(ev, "*");
    window.dispatchEvent(new CustomEvent("memplan", { detail: ev }));
  }
  const go = new Go();
  const exit = go.exit;
  go.exit = (code) => { exit(code); stop("exit code " + code); };
  // A trap in the wasm (out of memory, unreachable) surfaces as an
  // exception in whichever callback entered Go.
  window.addEventListener("error", (e) => {
    if (e.error instanceof WebAssembly.RuntimeError || go.exited) stop(String(e.error || e.message));
  });
  WebAssembly.instantiateStreaming(fetch("memplan.wasm"), go.importObject)
    .then((r) => go.run(r.instance))
    .then(() => stop("it returned"), (err) => stop(go._inst || go.exited ? String(err) : "could not start: " + err));
})();
