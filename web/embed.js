// <memplan-plan>: memplan's viewer in one line of HTML.
//
//   <script type="module" src="https://docs.example/memplan/embed.js"></script>
//   <memplan-plan src="mlp.json" strategy="auto" f32-uniform height="420"></memplan-plan>
//
// The element puts viewer.html (from beside this script) in an iframe,
// fetches src itself, relative to the host page (so the host needs no
// CORS set-up), and hands the bytes to the viewer with the element's
// attributes as written: Go reads them as planning options, so an
// attribute left out is an option at its default. Changing an attribute
// re-plans; theme="light|dark" (else the host's prefers-color-scheme)
// picks the colours. The viewer's events come out as DOM events on the
// element (ready, summary, select, error, …; detail is the event), and
// el.send(msg) sends the viewer any message of docs/embedding.md.
// No dependencies; each element talks only to its own iframe.

const base = new URL(".", import.meta.url);
const viewerURL = new URL("viewer.html", base);
// Messages go to the viewer's origin only.
const viewerOrigin = viewerURL.origin;
// Attributes that are the element's own, or the DOM's: changing them
// re-plans nothing. Every other attribute goes to Go, which ignores what
// is not an option.
const notOptions = new Set(["src", "height", "theme", "class", "style", "id", "title", "hidden", "tabindex"]);
const lightScheme = matchMedia("(prefers-color-scheme: light)");

const css = `
:host { display: block; position: relative; height: 420px; min-height: 120px; }
iframe { display: block; width: 100%; height: 100%; border: 0; border-radius: inherit; }
[part=error] { position: absolute; left: 12px; right: 12px; bottom: 12px; padding: 8px 12px;
  font: 13px/1.45 system-ui, sans-serif; white-space: pre-wrap; overflow-wrap: anywhere;
  background: #fff; color: #1c1e24; border: 1px solid #c0392b; border-left-width: 4px; border-radius: 4px; }
:host([data-theme=dark]) [part=error] { background: #181a20; color: #e6e8ee; border-color: #e0655a; }
[part=error][hidden] { display: none; }
`;

class MemplanPlan extends HTMLElement {
  constructor() {
    super();
    this.frame = null;
    this.live = false;     // the viewer answered (ready or pong)
    this.file = null;      // {name, data}: the fetched src
    this.sent = false;     // file went to the viewer
    this.seq = 0;          // bumps per fetch; stale fetches are dropped
    this.onMessage = this.onMessage.bind(this);
    this.onScheme = () => this.sendTheme();
    this.observer = new MutationObserver((records) => {
      for (const name of new Set(records.map((r) => r.attributeName))) this.attributeChanged(name);
    });
  }

  connectedCallback() {
    window.addEventListener("message", this.onMessage);
    lightScheme.addEventListener("change", this.onScheme);
    this.observer.observe(this, { attributes: true });
    if (this.frame) return; // moved in the document: the iframe reloads, and says ready again
    const root = this.shadowRoot || this.attachShadow({ mode: "open" });
    const style = document.createElement("style");
    style.textContent = css;
    this.errorBox = document.createElement("div");
    this.errorBox.setAttribute("part", "error");
    this.errorBox.setAttribute("role", "alert");
    this.errorBox.hidden = true;
    this.frame = document.createElement("iframe");
    this.frame.title = this.getAttribute("title") || "memory plan";
    // A docs page may hold many: each starts when scrolled near.
    this.frame.loading = "lazy";
    this.applyHeight();
    this.dataset.theme = this.theme();
    const url = new URL(viewerURL);
    url.searchParams.set("blank", "");
    // The viewer posts its events to this origin only.
    url.searchParams.set("origin", location.origin);
    url.searchParams.set("theme", this.theme());
    // A ping once the page is up, for a viewer that could not know this
    // origin; ready (or the pong) says it listens.
    this.frame.addEventListener("load", () => this.post({ type: "ping" }));
    this.frame.src = url.href;
    root.replaceChildren(style, this.frame, this.errorBox);
    this.fetchSrc();
  }

  disconnectedCallback() {
    window.removeEventListener("message", this.onMessage);
    lightScheme.removeEventListener("change", this.onScheme);
    this.observer.disconnect();
    this.live = false;
  }

  // send posts a message to this element's viewer (docs/embedding.md).
  send(msg) { this.post(msg); }

  post(msg, transfer) {
    if (this.frame && this.frame.contentWindow) this.frame.contentWindow.postMessage(msg, viewerOrigin, transfer || []);
  }

  optionAttributes() {
    const out = {};
    for (const a of this.attributes) if (!notOptions.has(a.name)) out[a.name] = a.value;
    return out;
  }

  attributeChanged(name) {
    if (!this.frame) return;
    if (name === "src") this.fetchSrc();
    else if (name === "height") this.applyHeight();
    else if (name === "theme") this.sendTheme();
    else if (!notOptions.has(name) && this.sent) this.post({ type: "options", attributes: this.optionAttributes() });
  }

  applyHeight() {
    const h = this.getAttribute("height");
    this.style.height = h === null ? "" : /^\d+(\.\d+)?$/.test(h) ? h + "px" : h;
  }

  theme() {
    const t = this.getAttribute("theme");
    return t === "light" || t === "dark" ? t : lightScheme.matches ? "light" : "dark";
  }

  sendTheme() {
    this.dataset.theme = this.theme();
    this.post({ type: "theme", name: this.theme() });
  }

  async fetchSrc() {
    const seq = ++this.seq;
    const src = this.getAttribute("src");
    this.file = null;
    this.sent = false;
    this.errorBox.hidden = true;
    if (!src) return;
    const url = new URL(src, document.baseURI);
    const name = decodeURIComponent(url.pathname.split("/").pop()) || src;
    let data;
    try {
      const resp = await fetch(url);
      if (!resp.ok) throw new Error("HTTP " + resp.status + (resp.statusText ? " " + resp.statusText : ""));
      data = await resp.arrayBuffer();
    } catch (err) {
      if (seq === this.seq) this.fail({ type: "error", kind: "input", file: name, message: "fetching " + src + ": " + err.message });
      return;
    }
    if (seq !== this.seq) return;
    this.file = { name, data };
    this.flush();
  }

  // flush sends the file once both it and the viewer are ready.
  flush() {
    if (!this.live || !this.file || this.sent) return;
    this.sent = true;
    const data = this.file.data.slice(0); // kept, in case the viewer reloads
    this.post({ type: "load", name: this.file.name, data, attributes: this.optionAttributes() }, [data]);
  }

  // fail shows an error the viewer never saw (the fetch) in the element.
  fail(ev) {
    this.errorBox.textContent = ev.message;
    this.errorBox.hidden = false;
    this.emit(Object.assign({ source: "memplan" }, ev));
  }

  emit(m) {
    this.dispatchEvent(new CustomEvent(m.type, { detail: m }));
  }

  onMessage(e) {
    // Only this element's own viewer.
    if (!this.frame || e.source !== this.frame.contentWindow || e.origin !== viewerOrigin) return;
    const m = e.data;
    if (!m || m.source !== "memplan" || typeof m.type !== "string") return;
    if (m.type === "ready" || m.type === "pong") {
      if (m.type === "ready") { this.live = false; this.sent = false; } // a (re)started viewer
      if (!this.live) {
        this.live = true;
        this.sendTheme();
        this.flush();
      }
    }
    this.emit(m);
  }
}

if (!customElements.get("memplan-plan")) customElements.define("memplan-plan", MemplanPlan);
