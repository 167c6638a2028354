// <memplan-plan>: a memory plan in one line of HTML.
//
//   <script type="module" src="https://docs.example/memplan/embed.js"></script>
//   <memplan-plan src="mlp.json" strategy="auto" f32-uniform height="420"></memplan-plan>
//
// Every element of a page shares one planner (runtime.js's pool of
// workers, beside this script), which plans them in the order they come
// near the viewport, each whole in one worker, the workers side by side,
// and ends its workers when it has been idle a while. Each element first
// shows a picture of its plan, drawn by Go (the worker's SVG export, the
// picture plan --svg writes) at the element's size and in the host's
// theme; the live viewer (viewer.html, in an iframe) starts only when the
// reader turns to it (a click, the focus, Ctrl/⌘+wheel, a key), takes
// over the same box once it has drawn the plan, and goes back to the
// picture when two others are newer or it has scrolled away. The element
// fetches src itself, relative to the host page, so the host needs no
// CORS set-up for its files; its attributes go to Go as written, which
// reads them as planning options (JavaScript here parses none). Events:
// "picture" (a picture is shown, with its plan's facts: arena, lower
// bound, fit verdict, in Go's words too), "live" (the viewer took over),
// "error", and once live the viewer's own (ready, summary, select, …;
// detail is the event); el.send(msg) sends the live viewer any message
// of docs/embedding.md.

const base = new URL(".", import.meta.url);
const viewerURL = new URL("viewer.html", base);
// Messages go to the viewer's origin only.
const viewerOrigin = viewerURL.origin;
// Attributes that are the element's own, or the DOM's: changing them
// re-plans nothing. Every other attribute goes to Go, which ignores what
// is not an option.
const notOptions = new Set(["src", "height", "theme", "class", "style", "id", "title", "hidden", "tabindex", "role", "aria-label"]);
// At most this many live viewers on a page: each is a viewer wasm and a
// planner of its own, in a process of its own.
const maxLive = 2;
// The planner's workers: each is memory, and a docs page's files plan in
// milliseconds.
const lanes = Math.max(1, Math.min(navigator.hardwareConcurrency || 2, 2));
const idleMillis = 3000;
const darkScheme = matchMedia("(prefers-color-scheme: dark)");

const css = `
:host { display: block; position: relative; height: 420px; min-height: 120px; overflow: hidden; contain: layout paint; }
:host(:focus-visible) { outline: 3px solid #56b4e9; outline-offset: -3px; }
img, iframe { position: absolute; inset: 0; width: 100%; height: 100%; border: 0; display: block; }
/* A viewer starting is under the picture, not hidden: the browser runs
   the frames of an iframe it shows, and would throttle a hidden one. */
img { cursor: pointer; z-index: 1; }
img:not([src]) { visibility: hidden; }
iframe { pointer-events: none; }
iframe.up { pointer-events: auto; }
img.behind { visibility: hidden; }
[part=status], [part=hint] { position: absolute; z-index: 2; left: 50%; top: 45%; transform: translate(-50%, -50%); max-width: 90%;
  font: 13px/1.4 system-ui, sans-serif; color: #5a5f6b; pointer-events: none; text-align: center; }
[part=hint] { padding: 6px 12px; border-radius: 4px; background: rgba(255, 255, 255, 0.94); color: #1c1e24;
  border: 1px solid #b9bfca; opacity: 0; transition: opacity 0.2s; }
[part=hint].open { opacity: 1; }
:host([data-theme=dark]) [part=status] { color: #9aa0ad; }
:host([data-theme=dark]) [part=hint] { background: rgba(24, 26, 32, 0.94); color: #e6e8ee; border-color: #444a58; }
[part=error] { position: absolute; z-index: 2; left: 12px; right: 12px; bottom: 12px; padding: 8px 12px; max-height: 60%; overflow: auto;
  font: 13px/1.45 system-ui, sans-serif; white-space: pre-wrap; overflow-wrap: anywhere;
  background: #fff; color: #1c1e24; border: 1px solid #c0392b; border-left-width: 4px; border-radius: 4px; }
:host([data-theme=dark]) [part=error] { background: #181a20; color: #e6e8ee; border-color: #e0655a; }
/* With no picture to keep in view, in the middle of the box. */
[part=error].alone { bottom: auto; top: 50%; transform: translateY(-50%); }
[hidden] { display: none !important; }
`;

// ---- what the page's elements share ----

const page = {
  runtime: null,   // a promise of the shared planner runtime
  broken: "",      // why memplan's files do not load here, once known
  queue: [],       // elements waiting for the planner, first come first
  lanes: [],       // the element each worker works for
  asking: 0,       // requests in flight
  idle: 0,         // the timer that ends the workers
  live: [],        // elements with a live viewer, the least recent first
  elements: new Set(),
};

// loadRuntime imports runtime.js (beside this script) once for the page
// and gives its shared planner, a pool of a worker a lane.
function loadRuntime() {
  if (!page.runtime) {
    page.runtime = import(new URL("runtime.js", base).href).then(() => {
      const rt = globalThis.MemplanRuntime.shared(base);
      if (!rt.pool) rt.size = lanes;
      return rt;
    }, async () => { throw new HostError(await why(["runtime.js"])); });
  }
  return page.runtime;
}

// HostError is a file of memplan's that does not load: what the host of
// memplan's files must fix.
class HostError extends Error {}

// why finds which of memplan's files does not load from this page and
// says what its host must fix: each fetched as the page fetches it (with
// CORS), its status and type read. "" when all load.
async function why(names) {
  for (const name of names) {
    const url = new URL(name, base).href;
    let resp;
    try {
      resp = await fetch(url, { mode: "cors", credentials: "omit", cache: "no-store" });
    } catch (_) {
      return "memplan's " + name + " at " + url + " cannot be read from this page: its host must send " +
        "Access-Control-Allow-Origin (or the file is not there).";
    }
    if (resp.body) resp.body.cancel().catch(() => {});
    if (!resp.ok) return "memplan's " + name + " is not at " + url + " (HTTP " + resp.status + "): copy memplan's site there (make site).";
    const type = (resp.headers.get("Content-Type") || "none").split(";")[0];
    if (name.endsWith(".js") && !/javascript|ecmascript/.test(type)) {
      return "memplan's " + name + " at " + url + " is served as " + type + ": its host must serve .js files as text/javascript.";
    }
  }
  return "";
}

// The planner's files, for why: a worker that stops at once failed to
// load one of them.
const plannerFiles = ["planner.wasm", "worker.js", "wasm_exec.js"];

// ask sends a worker of the planner a message, and counts it in flight.
function ask(rt, to, msg) {
  page.asking++;
  return rt.ask(to, msg).finally(() => { page.asking--; });
}

function enqueue(el, first) {
  const at = page.queue.indexOf(el);
  if (at >= 0) {
    if (!first) return;
    page.queue.splice(at, 1);
  }
  if (first) page.queue.unshift(el);
  else page.queue.push(el);
  pump();
}

// pump gives each worker of the planner to one element at a time: a
// worker plans one request at a time (a newer one cancels the one in
// flight), and a docs page's files are small, so each plans whole in
// one worker, as the command line on one core, the workers side by side.
function pump() {
  clearTimeout(page.idle);
  for (let lane = 0; lane < lanes; lane++) {
    if (page.lanes[lane]) continue;
    // An element a worker already works for waits for it: two workers
    // would plan and draw it twice.
    const at = page.queue.findIndex((el) => !page.lanes.includes(el));
    if (at < 0) break;
    const el = page.queue.splice(at, 1)[0];
    page.lanes[lane] = el;
    el.work(lane).catch((err) => el.fail({ kind: "stopped", message: String(err && err.message || err) })).finally(() => {
      page.lanes[lane] = null;
      pump();
    });
  }
  // Idle, the workers end: their memory (a wasm heap never shrinks) goes
  // back to the reader. The next request starts new ones from the
  // compiled module.
  if (!page.queue.length && !page.lanes.some(Boolean) && page.runtime) {
    page.idle = setTimeout(() => page.runtime.then((rt) => { if (!page.asking) rt.failAll("idle"); }), idleMillis);
  }
}

// near: elements within a screen of the viewport are planned, in the
// order they come near; seen: one that comes into view goes first.
const near = new IntersectionObserver((entries) => {
  for (const e of entries) {
    e.target.near = e.isIntersecting;
    if (e.isIntersecting) e.target.wanted();
    else e.target.away();
  }
}, { rootMargin: "100% 0px" });
const seen = new IntersectionObserver((entries) => {
  for (const e of entries) if (e.isIntersecting && page.queue.includes(e.target)) enqueue(e.target, true);
});
const resized = new ResizeObserver((entries) => {
  for (const e of entries) e.target.resized();
});

// The host's theme: the colour behind the elements, else its page's
// color-scheme. Watched on the page's root and body, whose classes and
// styles are where themes switch.
function hostTheme(el) {
  for (let n = el.parentElement || (el.getRootNode() && el.getRootNode().host); n; n = n.parentElement || (n.getRootNode() && n.getRootNode().host)) {
    const c = (getComputedStyle(n).backgroundColor.match(/[\d.]+/g) || []).map(Number);
    if (c.length >= 3 && (c.length < 4 || c[3] > 0.5)) {
      return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2] < 128 ? "dark" : "light";
    }
  }
  const scheme = getComputedStyle(document.documentElement).colorScheme || "";
  return /dark/.test(scheme) && (!/light/.test(scheme) || darkScheme.matches) ? "dark" : "light";
}
const themeChanged = () => { for (const el of page.elements) el.applyTheme(); };
darkScheme.addEventListener("change", themeChanged);
const themeWatch = new MutationObserver(themeChanged);
function watchTheme() {
  for (const n of [document.documentElement, document.body]) {
    if (n) themeWatch.observe(n, { attributes: true, attributeFilter: ["class", "style", "data-theme", "data-color-scheme"] });
  }
}

window.addEventListener("message", (e) => {
  for (const el of page.elements) if (el.frame && e.source === el.frame.contentWindow) el.heard(e);
});

// ---- the element ----

class MemplanPlan extends HTMLElement {
  constructor() {
    super();
    this.near = false;
    this.seq = 0;          // bumps per src or options; stale work is dropped
    this.file = null;      // a promise of {name, data}: the fetched src
    this.plan = null;      // {bytes, from, budget}: the plan the picture shows
    this.planned = -1;     // the seq it was planned for
    this.drawn = "";       // the size and theme of the picture shown
    this.frame = null;     // the live viewer, when there is one
    this.viewerUp = false; // it answered, and has the file
    this.observer = new MutationObserver((records) => {
      for (const name of new Set(records.map((r) => r.attributeName))) this.attributeChanged(name);
    });
  }

  connectedCallback() {
    page.elements.add(this);
    watchTheme();
    this.observer.observe(this, { attributes: true });
    if (!this.shadowRoot) this.build();
    this.applyHeight();
    this.dataset.theme = this.theme();
    near.observe(this);
    seen.observe(this);
    resized.observe(this);
  }

  disconnectedCallback() {
    page.elements.delete(this);
    this.observer.disconnect();
    near.unobserve(this);
    seen.unobserve(this);
    resized.unobserve(this);
    const at = page.queue.indexOf(this);
    if (at >= 0) page.queue.splice(at, 1);
    this.toPicture();
  }

  build() {
    const root = this.attachShadow({ mode: "open" });
    const style = document.createElement("style");
    style.textContent = css;
    this.img = document.createElement("img");
    this.img.alt = "";
    this.img.addEventListener("load", () => {
      if (this.oldURL) URL.revokeObjectURL(this.oldURL);
      this.oldURL = null;
      this.status.hidden = true;
    });
    this.status = document.createElement("div");
    this.status.setAttribute("part", "status");
    this.hint = document.createElement("div");
    this.hint.setAttribute("part", "hint");
    this.hint.textContent = "click to zoom and explore the plan";
    this.errorBox = document.createElement("div");
    this.errorBox.setAttribute("part", "error");
    this.errorBox.setAttribute("role", "alert");
    this.errorBox.hidden = true;
    root.replaceChildren(style, this.img, this.status, this.hint, this.errorBox);
    // Reachable by keyboard: the focus starts the live viewer.
    if (!this.hasAttribute("tabindex")) this.tabIndex = 0;
    if (!this.hasAttribute("role")) this.setAttribute("role", "group");
    this.label();
    // The reader turns to the plan: the live viewer takes over.
    this.addEventListener("pointerdown", () => this.toLive());
    this.addEventListener("focus", () => this.toLive());
    this.addEventListener("keydown", (e) => { if (!e.ctrlKey && !e.metaKey && !e.altKey && e.key !== "Tab") this.toLive(); });
    this.addEventListener("wheel", (e) => {
      if (this.frame) return;
      if (e.ctrlKey || e.metaKey) {
        e.preventDefault(); // the plan zooms, not the page
        this.toLive();
        return;
      }
      // The page scrolls on; the reader learns how to zoom.
      this.hint.classList.add("open");
      clearTimeout(this.hintTimer);
      this.hintTimer = setTimeout(() => this.hint.classList.remove("open"), 1500);
    }, { passive: false });
  }

  label() {
    const src = this.getAttribute("src") || "";
    if (!this.hasAttribute("aria-label")) this.setAttribute("aria-label", "memory plan of " + src + "; focus or click to explore it");
    this.img.alt = "memory plan of " + src;
  }

  // send posts a message to this element's live viewer (docs/embedding.md).
  send(msg) { this.post(msg); }

  // picture is the picture shown: its SVG (Go's), size, theme, file and
  // the facts of its plan (protocol.PlanFacts); null before the first.
  get picture() { return this.svg || null; }

  post(msg, transfer) {
    if (this.frame && this.frame.contentWindow) this.frame.contentWindow.postMessage(msg, viewerOrigin, transfer || []);
  }

  optionAttributes() {
    const out = {};
    for (const a of this.attributes) if (!notOptions.has(a.name) && !a.name.startsWith("data-") && !a.name.startsWith("aria-")) out[a.name] = a.value;
    return out;
  }

  attributeChanged(name) {
    if (name === "src") {
      this.seq++;
      this.file = null;
      this.label();
      if (this.near) this.wanted();
      if (this.viewerUp) this.sendFile();
    } else if (name === "height") {
      this.applyHeight();
    } else if (name === "theme") {
      this.applyTheme();
    } else if (!notOptions.has(name) && !name.startsWith("data-") && !name.startsWith("aria-")) {
      this.seq++;
      if (this.near) this.wanted();
      if (this.viewerUp) this.post({ type: "options", attributes: this.optionAttributes() });
    }
  }

  applyHeight() {
    const h = this.getAttribute("height");
    this.style.height = h === null ? "" : /^\d+(\.\d+)?$/.test(h) ? h + "px" : h;
  }

  theme() {
    const t = this.getAttribute("theme");
    return t === "light" || t === "dark" ? t : hostTheme(this);
  }

  applyTheme() {
    const t = this.theme();
    if (t === this.dataset.theme) return;
    this.dataset.theme = t;
    this.post({ type: "theme", name: t });
    if (this.plan && this.near) enqueue(this);
  }

  // size is the picture's size: the element's, in CSS pixels.
  size() {
    return { width: Math.max(Math.round(this.clientWidth), 160), height: Math.max(Math.round(this.clientHeight), 120) };
  }

  resized() {
    if (!this.plan || !this.near || this.frame) return; // a live viewer sizes itself
    clearTimeout(this.resizeTimer);
    // Once the size holds still: a window dragged wider draws once.
    this.resizeTimer = setTimeout(() => enqueue(this), 150);
  }

  // wanted: the element came near the viewport, or its file or options
  // changed: start fetching, and wait for the planner.
  wanted() {
    if (!this.file && this.getAttribute("src")) this.file = this.fetchSrc(this.seq);
    if (this.planned !== this.seq || this.drawn !== this.drawnKey()) enqueue(this);
  }

  // away: the element left the viewport's neighbourhood. A live viewer
  // nobody uses goes back to its picture.
  away() {
    if (this.frame && !this.matches(":focus-within")) this.toPicture();
  }

  drawnKey() {
    const s = this.size();
    return s.width + "x" + s.height + " " + this.theme();
  }

  // work is what the element needs of the planner: a plan of its file,
  // then its picture at its size and in its theme.
  async work(lane) {
    const seq = this.seq;
    if (page.broken) throw new HostError(page.broken);
    if (!this.file) {
      if (!this.getAttribute("src")) return;
      this.file = this.fetchSrc(seq);
    }
    if (this.planned !== seq) {
      const file = await this.file;
      if (!file || seq !== this.seq) return;
      this.showStatus("planning " + file.name + "…");
      const rt = await this.runtime();
      // A plan request with no pool: the worker plans it whole.
      const ev = await ask(rt, lane, { type: "plan", name: file.name, attributes: this.optionAttributes(), data: file.data });
      if (seq !== this.seq) return;
      if (ev.type !== "planned") {
        const error = ev.error || { kind: "stopped", message: "the planner gave no answer" };
        // Not planned again until the file or options change; a planner
        // that stopped is started again for the next request.
        if (error.kind !== "stopped") this.planned = seq;
        await this.planFailed(error, file.name);
        return;
      }
      // The budget line is Go's verdict's (summary.fit.budget); the
      // facts are Go's too, for the picture event (protocol.PlanFacts).
      this.plan = { bytes: ev.plan, budget: ev.fit ? ev.fit.budget : 0, name: file.name, summary: ev.summary || null };
      this.planned = seq;
      this.drawn = ""; // a new plan: its picture is still to draw
    }
    // Asked again for a picture already shown (the element came near
    // once more while it was planned), it draws nothing, and fires no
    // second picture.
    if (this.plan && this.drawn !== this.drawnKey()) await this.draw(lane);
  }

  async runtime() {
    try {
      return await loadRuntime();
    } catch (err) {
      if (err instanceof HostError) page.broken = err.message;
      throw err;
    }
  }

  // draw has the plan's picture made at the element's size and theme:
  // the worker proves the plan again and writes it with viz/svgplot.
  async draw(lane) {
    const key = this.drawnKey(), { width, height } = this.size(), theme = this.theme(), plan = this.plan;
    const rt = await this.runtime();
    const out = await ask(rt, lane, { type: "export", what: "svg", name: plan.name, plan: plan.bytes,
      theme, budget: plan.budget, width, height });
    if (plan !== this.plan) return;
    if (out.type !== "exported") {
      await this.planFailed(out.error || { kind: "stopped", message: "the planner gave no picture" }, plan.name);
      return;
    }
    this.errorBox.hidden = true;
    this.drawn = key;
    this.dataset.theme = theme;
    this.svg = { svg: new TextDecoder().decode(out.data), width, height, theme, file: plan.name, summary: plan.summary };
    if (this.img.src) this.oldURL = this.img.src;
    this.img.src = URL.createObjectURL(new Blob([out.data], { type: "image/svg+xml" }));
    await this.img.decode().catch(() => {});
    this.emitPicture();
  }

  // emitPicture fires "picture" (protocol.Picture): the picture shown
  // and the facts of its plan as the worker wrote them, so the host can
  // state the arena before anyone makes the element live.
  emitPicture() {
    const pic = this.svg;
    if (!pic) return; // no picture yet: nothing to tell
    this.emit({ type: "picture", file: pic.file, width: pic.width, height: pic.height, theme: pic.theme, summary: pic.summary });
  }

  // planFailed shows why there is no plan or picture. A planner that
  // stopped at once may be memplan's files not loading here: which one,
  // and what its host must fix, is said instead.
  async planFailed(error, name) {
    if (error.kind === "stopped") {
      const host = await why(plannerFiles);
      if (host) {
        page.broken = host;
        error = { kind: "stopped", message: host };
      }
    }
    this.fail(Object.assign({ file: name }, error));
  }

  // fetchSrc fetches the element's file from the host page, refusing one
  // over the page's limit before reading it: by its Content-Length, else
  // by counting as it streams in. The limit and the words are Go's (the
  // worker's "check"). A promise of {name, data}, or null when it failed.
  async fetchSrc(seq) {
    const src = this.getAttribute("src");
    const url = new URL(src, document.baseURI);
    const name = decodeURIComponent(url.pathname.split("/").pop()) || src;
    const failed = async (error) => {
      if (seq === this.seq) await this.planFailed(Object.assign({ kind: "input" }, error), name);
      return null;
    };
    let resp;
    try {
      resp = await fetch(url);
      if (!resp.ok) throw new Error("HTTP " + resp.status + (resp.statusText ? " " + resp.statusText : ""));
    } catch (err) {
      return failed({ message: "fetching " + src + ": " + err.message });
    }
    let rt;
    try {
      rt = await this.runtime();
    } catch (err) {
      resp.body && resp.body.cancel().catch(() => {});
      return failed({ kind: "stopped", message: err.message });
    }
    const length = Number(resp.headers.get("Content-Length")) || 0;
    const check = await ask(rt, 0, { type: "check", name, size: length });
    if (check.type !== "checked" || check.error) {
      resp.body && resp.body.cancel().catch(() => {});
      return failed(check.error || { message: "the planner did not answer" });
    }
    const chunks = [];
    let n = 0;
    try {
      const reader = resp.body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        n += value.length;
        if (n > check.limit) {
          reader.cancel().catch(() => {});
          const over = await ask(rt, 0, { type: "check", name, over: true });
          return failed(over.error || { message: "too large" });
        }
        chunks.push(value);
      }
    } catch (err) {
      return failed({ message: "reading " + src + ": " + err.message });
    }
    const data = new Uint8Array(n);
    let at = 0;
    for (const c of chunks) { data.set(c, at); at += c.length; }
    return { name, data };
  }

  showStatus(text) {
    if (this.img.getAttribute("src")) return; // the last picture stays
    this.status.textContent = text;
    this.status.hidden = false;
  }

  // fail shows an error in the element, over the last picture, and fires
  // it as an "error" event (detail: protocol.Error's fields).
  fail(error) {
    this.status.hidden = true;
    this.errorBox.textContent = error.message;
    this.errorBox.classList.toggle("alone", !this.img.getAttribute("src"));
    this.errorBox.hidden = false;
    this.emit(Object.assign({ source: "memplan", type: "error" }, error, { showing: this.plan ? this.plan.name : null }));
  }

  emit(m) {
    if (!m.source) m = Object.assign({ source: "memplan" }, m);
    this.dispatchEvent(new CustomEvent(m.type, { detail: m }));
  }

  // ---- the live viewer ----

  // toLive starts the live viewer in this element's box: hidden until it
  // has drawn the plan, then over the picture. The least recent of the
  // others goes back to its picture beyond maxLive.
  toLive() {
    if (!this.getAttribute("src")) return;
    this.attended();
    if (this.frame) return;
    const others = page.live.filter((el) => el !== this);
    while (others.length >= maxLive) {
      const old = others.find((el) => !el.matches(":focus-within")) || others[0];
      others.splice(others.indexOf(old), 1);
      old.toPicture();
    }
    const url = new URL(viewerURL);
    url.searchParams.set("blank", "");
    // The viewer posts its events to this origin only.
    url.searchParams.set("origin", location.origin);
    url.searchParams.set("theme", this.theme());
    url.searchParams.set("pool", "1");
    this.frame = document.createElement("iframe");
    this.frame.title = this.getAttribute("title") || "memory plan of " + (this.getAttribute("src") || "");
    // A ping once the page is up, for a viewer that could not know this
    // origin; ready (or the pong) says it listens.
    this.frame.addEventListener("load", () => this.post({ type: "ping" }));
    this.frame.src = url.href;
    this.shadowRoot.insertBefore(this.frame, this.status);
    this.viewerUp = false;
    this.hint.classList.remove("open");
  }

  // toPicture ends the live viewer: the picture shows again.
  toPicture() {
    const at = page.live.indexOf(this);
    if (at >= 0) page.live.splice(at, 1);
    if (!this.frame) return;
    this.frame.remove();
    this.frame = null;
    this.viewerUp = false;
    this.img.classList.remove("behind");
    if (this.isConnected && this.plan && this.drawn !== this.drawnKey()) enqueue(this); // resized meanwhile
    if (this.isConnected) this.emitPicture();
  }

  // attended: the reader turned to this element: it is the most recent.
  attended() {
    const at = page.live.indexOf(this);
    if (at >= 0) page.live.splice(at, 1);
    page.live.push(this);
  }

  async sendFile() {
    const seq = this.seq;
    if (!this.file) this.file = this.fetchSrc(seq);
    const file = await this.file;
    if (!file || seq !== this.seq || !this.viewerUp) return;
    const data = file.data.slice(0).buffer; // kept, for the picture and a viewer started again
    this.post({ type: "load", name: file.name, data, attributes: this.optionAttributes() }, [data]);
  }

  heard(e) {
    // Only this element's own viewer, at its origin.
    if (e.origin !== viewerOrigin) return;
    const m = e.data;
    if (!m || m.source !== "memplan" || typeof m.type !== "string") return;
    if (m.type === "ready" || m.type === "pong") {
      if (!this.viewerUp) {
        this.viewerUp = true;
        this.post({ type: "theme", name: this.theme() });
        this.sendFile();
      }
    } else if ((m.type === "summary" || m.type === "error" && m.kind !== "cancelled") && !this.frame.classList.contains("up")) {
      // The viewer has the plan (or says why not): it takes over the
      // box, and the keyboard if the element has it.
      this.frame.classList.add("up");
      this.img.classList.add("behind");
      if (this.matches(":focus")) this.frame.focus();
      this.emit({ type: "live", file: m.file });
    } else if (m.type === "stopped") {
      this.toPicture();
    }
    if (m.type !== "hover" && m.type !== "state") this.attended();
    this.emit(m);
  }
}

if (!customElements.get("memplan-plan")) customElements.define("memplan-plan", MemplanPlan);
