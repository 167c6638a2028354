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
  const params = new URLSearchParams(location.search);
  const status = document.getElementById("status");
  const keys = document.getElementById("keys");

  // ---- talking to the host (docs/embedding.md, "Origins") ----
  // Events go to the parent window at its origin, never "*": the origin
  // is ?origin= when the host names it, the viewer's own when the parent
  // is same-origin, else learnt from the first message the parent sends
  // (a ping). Until then events wait here (hovers are dropped: they are
  // stale by then). A parent with an opaque origin ("null": a file://
  // page, a sandbox without allow-same-origin) cannot be addressed, and
  // gets no events.
  let hostOrigin = embedded ? params.get("origin") : null;
  if (hostOrigin === "*" || hostOrigin === "null") hostOrigin = null;
  if (embedded && !hostOrigin) {
    try { if (window.parent.location.origin === location.origin) hostOrigin = location.origin; } catch (_) { /* cross-origin */ }
  }
  // parentOrigin is the embedding page's origin when it is another site's
  // ("null" when it cannot be told), "" when there is none or it is ours.
  const parentOrigin = () => {
    if (!embedded || hostOrigin === location.origin) return "";
    return hostOrigin || (location.ancestorOrigins && location.ancestorOrigins[0]) || "null";
  };
  const held = [];
  // A summary's tensors (a Uint8Array of JSON, tens of megabytes for big
  // plans) are transferred, not copied: the host owns them after this.
  const toHost = (ev) => window.parent.postMessage(ev, hostOrigin, ev.tensors_json instanceof Uint8Array ? [ev.tensors_json.buffer] : []);
  window.memplanToHost = (ev) => {
    if (!embedded) return;
    if (hostOrigin) { toHost(ev); return; }
    if (ev.type !== "hover" && held.length < 256) held.push(ev);
  };
  // Registered before Go's own listener: a message from anywhere but the
  // parent, or from a parent at another origin than the one known, stops
  // here.
  window.addEventListener("message", (e) => {
    if (e.source !== window.parent || e.source === window) return;
    if (!hostOrigin && e.origin !== "null") {
      hostOrigin = e.origin;
      for (const ev of held.splice(0)) toHost(ev);
    } else if (e.origin !== hostOrigin) {
      e.stopImmediatePropagation();
    }
  }, { capture: true });
  // ?blank: the host brings its own file (embed.js), so the built-in
  // example is not shown first.
  window.memplanBlank = params.has("blank");
  // ?panels=host: the host shows hovers and errors itself (memplan's app).
  const ownPanels = params.get("panels") !== "host";
  // Colours: the canvas's are Go's, in the theme named here. The system's
  // scheme until the host sends a "theme" message (memplan's app does);
  // after that, the host's. <html data-theme> paints the page to match.
  const light = matchMedia("(prefers-color-scheme: light)");
  // ?theme=light|dark: the host's theme from the start, so nothing
  // flashes in the system's.
  let hostTheme = ["light", "dark"].includes(params.get("theme"));
  function theme(name) {
    document.documentElement.dataset.theme = name;
    if (window.memplan) window.memplan.send({ type: "theme", name });
  }
  const systemTheme = () => light.matches ? "light" : "dark";
  document.documentElement.dataset.theme = hostTheme ? params.get("theme") : systemTheme();
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
    if (m.type === "ready") status.textContent = "";
    if (m.type === "summary") status.textContent = "";
    if (m.type === "busy") status.textContent = (m.message || "planning " + m.file) + "…";
    // A long plan says, in the planner's words, what it is doing: a
    // second line under the first.
    if (m.type === "progress") status.textContent = "planning " + m.file + "…\n" + m.message;
    if (m.type === "error") status.textContent = "";
    if (!ownPanels) return;
    if (m.type === "hover") showTip(m);
    if (m.type === "error") showError(m);
    if (m.type === "summary") errorBox.classList.remove("open");
  });

  // ---- the widget's own tooltip and error box ----
  const tip = document.getElementById("tip");
  function showTip(m) {
    if (!m.tensor) { tip.classList.remove("open"); return; }
    const name = document.createElement("b");
    name.textContent = m.tensor.tensor.name + (m.part === "guard" ? " (guard band)" : "");
    const dl = document.createElement("dl");
    for (const [k, v] of m.tensor.rows || []) { // Go's words
      const dt = document.createElement("dt"), dd = document.createElement("dd");
      dt.textContent = k; dd.textContent = v;
      dl.append(dt, dd);
    }
    tip.replaceChildren(name, dl);
    tip.classList.add("open");
    const w = tip.offsetWidth, h = tip.offsetHeight;
    let x = m.x + 14, y = m.y + 14;
    if (x + w > innerWidth) x = Math.max(0, m.x - w - 10);
    if (y + h > innerHeight) y = Math.max(0, m.y - h - 10);
    tip.style.left = x + "px";
    tip.style.top = y + "px";
  }
  document.documentElement.addEventListener("mouseleave", () => tip.classList.remove("open"));
  // Errors in place, with where: file, line:col, JSON path, node.
  const errorBox = document.getElementById("error");
  function showError(m) {
    if (m.kind === "cancelled") return;
    let where = m.file || "";
    if (m.line) where += ":" + m.line + (m.column ? ":" + m.column : "");
    if (m.path) where += (where ? " · " : "") + m.path;
    if (m.node) where += (where ? " · node " : "node ") + m.node;
    document.getElementById("error-where").textContent = where;
    document.getElementById("error-msg").textContent = m.message +
      (m.showing ? "\n(still showing " + m.showing + ")" : "");
    errorBox.classList.add("open");
  }
  document.getElementById("error-close").addEventListener("click", () => {
    errorBox.classList.remove("open");
    if (window.memplan) window.memplan.send({ type: "dismiss" });
  });
  // Tab moves the focus on, out of the canvas too. Ebiten cancels every
  // keydown on its canvas, Tab's included, which traps the keyboard there:
  // stop Tab on its way down, before it reaches the canvas (nor is it a
  // key for Go).
  // While placing by hand, Tab walks the buffers instead, as long as Go
  // says (the placed event's tab_forward and tab_back) there is one to
  // walk to: past the last the focus moves on, so the keyboard is never
  // trapped.
  let tabWalks = { forward: false, back: false };
  window.addEventListener("memplan", (e) => {
    if (e.detail.type === "placed") tabWalks = { forward: e.detail.placing && e.detail.tab_forward, back: e.detail.placing && e.detail.tab_back };
  });
  for (const type of ["keydown", "keyup"]) {
    window.addEventListener(type, (e) => {
      if (e.key !== "Tab") return;
      e.stopPropagation();
      if (!(e.shiftKey ? tabWalks.back : tabWalks.forward)) return;
      e.preventDefault();
      if (type === "keydown" && window.memplan) window.memplan.send({ type: "key", key: "Tab", shift: e.shiftKey });
    }, { capture: true });
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
      window.memplanToHost({ source: "memplan", type: "open" });
      return;
    }
    if (e.ctrlKey || e.metaKey) return;
    // The key list: this page's own, or the host's (memplan's app) when
    // it shows the panels, even while the canvas has the focus.
    if (e.key === "?") {
      if (ownPanels) keys.classList.toggle("open");
      else window.memplanToHost({ source: "memplan", type: "help" });
    }
    if (e.key === "Escape") {
      if (ownPanels) keys.classList.remove("open");
      else window.memplanToHost({ source: "memplan", type: "help", open: false });
    }
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
    window.memplanToHost({ source: "memplan", type: "dragenter" });
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
  const wheelAlways = !embedded || params.get("wheel") === "always";
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
  // long plan never holds up the canvas: a pool of them, runtime.js's,
  // which Go drives (memplanRuntime). Which worker runs what and which
  // answer wins is decided by Go in the pool's first worker. A worker
  // that dies answers with a "stopped" error; the next request starts a
  // fresh pool. The wasm programs and the worker's script are files
  // beside this page or, in the single-file build (memplan.html, which
  // opens from file://), inlined in it as memplanInline. ?pool=N: at most
  // N workers (a docs page's widget, whose small files need few).
  const runtime = window.memplanRuntime = new MemplanRuntime(location.href, Math.max(params.get("pool") | 0, 0));

  // Files the viewer made (Go's memplanExported: pixels to encode as PNG,
  // or a worker's bytes) go out as an "export" event with a Blob, to the
  // host and to listeners here.
  window.memplanExported = async (m) => {
    let blob;
    if (m.rgba) {
      const canvas = document.createElement("canvas");
      canvas.width = m.width;
      canvas.height = m.height;
      canvas.getContext("2d").putImageData(new ImageData(new Uint8ClampedArray(m.rgba.buffer), m.width, m.height), 0, 0);
      blob = await new Promise((resolve) => canvas.toBlob(resolve, "image/png"));
    } else {
      blob = new Blob([m.data], { type: m.mime });
    }
    const ev = { source: "memplan", type: "export", what: m.what, name: m.name, mime: m.mime, blob };
    if (m.width) Object.assign(ev, { width: m.width, height: m.height });
    window.memplanToHost(ev);
    window.dispatchEvent(new CustomEvent("memplan", { detail: ev }));
  };

  // memplanFetch(url, {limit, for}) is how Go fetches a link's file: a
  // promise of {data: Uint8Array}, {size} (its Content-Length, over
  // limit: nothing read), {over: true} (it streamed past limit, and the
  // rest was not read), or {error} (the HTTP status or the network's
  // failure, which is also what a server without CORS headers looks like
  // from here). With for, the origin of a page at another site that asked
  // for it, the fetch sends no credentials and a response that does not
  // allow that origin (Access-Control-Allow-Origin) is refused unread: the
  // page gets nothing through the viewer that it could not read itself.
  window.memplanFetch = async (url, how) => {
    const limit = how.limit, asker = how.for || "";
    let resp;
    try {
      resp = await fetch(url, asker ? { credentials: "omit", mode: "cors" } : {});
    } catch (err) {
      return { error: "network failure (" + (err && err.message ? err.message : err) + "); a file on another site must allow CORS" };
    }
    if (!resp.ok) return { error: "HTTP " + resp.status + (resp.statusText ? " " + resp.statusText : "") };
    if (asker) {
      const allowed = resp.headers.get("Access-Control-Allow-Origin");
      if (allowed !== "*" && allowed !== asker) {
        resp.body && resp.body.cancel().catch(() => {});
        return { error: "a page at " + asker + " asked for it, and it does not allow that origin (Access-Control-Allow-Origin)" };
      }
    }
    const length = Number(resp.headers.get("Content-Length"));
    if (length > limit) {
      resp.body && resp.body.cancel().catch(() => {});
      return { size: length };
    }
    try {
      const reader = resp.body.getReader();
      const chunks = [];
      let n = 0;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        n += value.length;
        if (n > limit) {
          reader.cancel().catch(() => {});
          return { over: true };
        }
        chunks.push(value);
      }
      const out = new Uint8Array(n);
      let at = 0;
      for (const c of chunks) { out.set(c, at); at += c.length; }
      return { data: out };
    } catch (err) {
      return { error: "reading it failed (" + (err && err.message ? err.message : err) + ")" };
    }
  };

  // memplanPack(bytes, limit) compresses a file for a link with the
  // browser's own deflate (raw, as Go's link package inflates it): a
  // promise of {packed: Uint8Array}, or {error} once the output passes
  // limit (Go's), without compressing the rest. The input goes in small
  // slices, each awaited: deflate runs on this thread, and a 10 MB model
  // handed over whole kept it (and the canvas) for most of a second before
  // the first output could say it was over.
  window.memplanPack = async (data, limit) => {
    // A link can wait: start once the page is idle, after the plan that
    // came with this file has reached the host and been drawn.
    await new Promise((resolve) => window.requestIdleCallback ? requestIdleCallback(resolve, { timeout: 1000 }) : setTimeout(resolve));
    const SLICE = 64 << 10;
    const bytes = data instanceof Blob ? new Uint8Array(await data.arrayBuffer()) : data instanceof Uint8Array ? data : new Uint8Array(data);
    const cs = new CompressionStream("deflate-raw");
    const writer = cs.writable.getWriter(), reader = cs.readable.getReader();
    const chunks = [];
    let n = 0, over = false;
    const reading = (async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        n += value.length;
        if (n > limit) {
          over = true;
          await reader.cancel(); // fails a write still waiting
          return;
        }
        chunks.push(value);
      }
    })();
    reading.catch(() => {}); // awaited below; its failure is the write's
    try {
      for (let at = 0; at < bytes.length && !over; at += SLICE) await writer.write(bytes.subarray(at, at + SLICE));
      if (!over) await writer.close();
      await reading;
    } catch (err) {
      if (!over) {
        reader.cancel().catch(() => {});
        return { error: String(err && err.message ? err.message : err) };
      }
    }
    if (over) {
      writer.abort().catch(() => {});
      return { error: "over the limit" };
    }
    const out = new Uint8Array(n);
    let at = 0;
    for (const c of chunks) { out.set(c, at); at += c.length; }
    return { packed: out };
  };

  // The link: Go encodes the state in the fragment and posts it as a
  // "state" event. Standalone, this page's own address follows it (a new
  // file or new options make a history entry); embedded in another page,
  // "open in memplan" carries it to the full app. On load and on
  // back/forward the address goes back to Go, which reads it.
  const inApp = new URLSearchParams(location.search).has("app");
  const openApp = document.getElementById("open-app");
  window.addEventListener("memplan", (e) => {
    const m = e.detail;
    // Embedded in a page of another site, this page's own address is that
    // page's choice: a file it names is fetched only as that page could
    // (Go's fetch).
    if (m.type === "ready" && !inApp) window.memplan.send({ type: "location", search: location.search, hash: location.hash }, { origin: parentOrigin() });
    if (m.type !== "state") return;
    if (!embedded) {
      const url = location.pathname + location.search + "#" + m.hash;
      if (m.push) history.pushState(null, "", url);
      else history.replaceState(null, "", url);
    } else if (!inApp) {
      openApp.href = new URL("index.html#" + m.hash, location.href).href;
      openApp.hidden = false;
    }
  });
  window.addEventListener("popstate", () => {
    if (!embedded && window.memplan) window.memplan.send({ type: "location", search: location.search, hash: location.hash });
  });
  // Start the workers (and the planner's download) beside the viewer's
  // own, so the first file dropped plans at once; Go's warm-up runs in
  // them beside the first picture. A pool that failed starts again with
  // the next plan shown.
  runtime.start();
  window.addEventListener("memplan", (e) => {
    if (e.detail.type === "summary") setTimeout(() => runtime.start(), 0);
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
    window.memplanToHost(ev);
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
  MemplanRuntime.compileWasm("memplan.wasm")
    .then((mod) => WebAssembly.instantiate(mod, go.importObject))
    .then((instance) => go.run(instance))
    .then(() => stop("it returned"), (err) => stop(go._inst || go.exited ? String(err) : "could not start: " + err));
})();
