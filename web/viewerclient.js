// A host's side of the viewer's message API (docs/embedding.md), shared by
// the pages that embed viewer.html as any other site would: messages wait
// until the viewer is ready, events reach the listeners, and the canvas
// follows the page's colour scheme. Messages go to the viewer's own
// origin, never "*", and events are taken only from it.
export class ViewerClient {
  constructor(iframe) {
    this.frame = iframe;
    // The viewer's origin, from its address: messages go there only, and
    // only messages from there are heard.
    this.origin = new URL(iframe.getAttribute("src") || "viewer.html", location.href).origin;
    this.ready = null;  // the ready event, once it came
    this.queue = [];
    this.listeners = [];
    window.addEventListener("message", (e) => {
      if (e.source !== iframe.contentWindow || e.origin !== this.origin) return;
      const m = e.data;
      if (!m || m.source !== "memplan") return;
      if (m.type === "ready") {
        this.ready = m;
        this.post({ type: "theme", name: scheme.matches ? "light" : "dark" });
        for (const [msg, tr] of this.queue.splice(0)) this.post(msg, tr);
      }
      for (const f of this.listeners) f(m);
    });
    scheme.addEventListener("change", () => this.send({ type: "theme", name: scheme.matches ? "light" : "dark" }));
  }

  // on calls f with every event the viewer posts.
  on(f) { this.listeners.push(f); }

  send(msg, transfer) {
    if (!this.ready) this.queue.push([msg, transfer]);
    else this.post(msg, transfer);
  }

  post(msg, transfer) { this.frame.contentWindow.postMessage(msg, this.origin, transfer || []); }
}

const scheme = matchMedia("(prefers-color-scheme: light)");
