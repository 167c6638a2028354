//go:build !js

package web

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"memplan/ir"
	"memplan/planner"
	"memplan/tools/site"
	"memplan/tools/site/browser"
	"memplan/wasm/protocol"
)

// embedPage is a docs page on one origin whose <memplan-plan> elements
// load embed.js (and the viewer) from another: %[1]s is memplan's origin,
// %[2]s the elements. Its background follows the reader's colour scheme,
// as a docs page's does. Every event an element fires is recorded in
// window.events[id], with the time it came.
const embedPage = `<!doctype html><html><head><meta charset="utf-8">
<style>:root { color-scheme: light dark; } body { margin: 0; font: 14px sans-serif; background: #fcfcfa; color: #1c1e24; }
@media (prefers-color-scheme: dark) { body { background: #181a20; color: #e6e8ee; } }</style>
<script type="module" src="%[1]s/embed.js" onerror="window.embedFailed = true"></script></head>
<body>
<p id="top">A page of docs.</p>
%[2]s
<script>
  window.events = {};
  for (const el of document.querySelectorAll("memplan-plan")) {
    const id = el.id;
    window.events[id] = [];
    for (const type of ["ready", "summary", "tensors", "select", "error", "picture", "live"]) {
      el.addEventListener(type, (e) => window.events[id].push(Object.assign({at: performance.now()}, e.detail)));
    }
  }
  // The last event of a type an element fired, or null.
  window.last = (id, type) => window.events[id].filter((e) => e.type === type).pop() || null;
  window.count = (id, type) => window.events[id].filter((e) => e.type === type).length;
</script>
<script>
  // The handshake by hand: a viewer told nothing of this origin, pinged
  // by the test (made when the test asks, so that it is no widget's).
  window.raw = []; window.pings = 0;
  window.makeRaw = () => {
    const rawFrame = document.createElement("iframe");
    rawFrame.src = "%[1]s/viewer.html?blank";
    rawFrame.style = "position: fixed; right: 0; bottom: 0; width: 2px; height: 2px; border: 0";
    window.addEventListener("message", (e) => {
      if (e.source === rawFrame.contentWindow) raw.push({type: e.data.type, version: e.data.version, pings, origin: e.origin});
    });
    window.ping = () => { pings++; rawFrame.contentWindow.postMessage({type: "ping"}, "%[1]s"); };
    document.body.append(rawFrame);
  };
</script>
</body></html>`

// embedElements are the cross-origin test's widgets: a graph, a buffer
// list, a model with params (left out unless asked for), a broken file
// and a missing one.
const embedElements = `<memplan-plan id="a" src="files/mlp.json" strategy="auto" height="260"></memplan-plan>
<memplan-plan id="b" src="files/buffers.csv" height="200"></memplan-plan>
<memplan-plan id="e" src="files/mnist.onnx" height="200"></memplan-plan>
<memplan-plan id="c" src="files/broken.json" height="160"></memplan-plan>
<memplan-plan id="d" src="files/missing.json" height="100"></memplan-plan>`

// embedSession serves memplan from one origin (through memplan, which
// may change what it serves: nil serves it as is) and a host page with
// its files from another, and opens the host page, holding elements, in
// a browser. served counts memplan's requests.
func embedSession(t *testing.T, scheme, elements string, memplan func(http.Handler) http.Handler) *session {
	return embedSessionAt(t, scheme, elements, memplan, 1280, 800)
}

// embedSessionAt is embedSession in a viewport of vw×vh.
func embedSessionAt(t *testing.T, scheme, elements string, memplan func(http.Handler) http.Handler, vw, vh int64) *session {
	root := moduleRoot(t)
	served := &site.Counter{Next: site.Handler(filepath.Join(root, "web"), build.wasm)}
	var h http.Handler = served
	if memplan != nil {
		h = memplan(served)
	}
	memplanSrv := httptest.NewServer(h)
	t.Cleanup(memplanSrv.Close)
	files := map[string]string{
		"/files/mlp.json":     filepath.Join(root, "examples", "mlp.json"),
		"/files/buffers.csv":  filepath.Join(root, "docs", "site", "buffers.csv"),
		"/files/broken.json":  filepath.Join(root, "docs", "site", "broken.json"),
		"/files/mnist.onnx":   filepath.Join(root, "web", "lessons", "mnist.onnx"),
		"/files/missing.json": "",
	}
	// held.json is mlp.json held back until the page asks for /release:
	// an element waits for its file while the test moves the page.
	held := make(chan struct{})
	release := sync.OnceFunc(func() { close(held) })
	hostSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/blank": // where the browser waits while the test sets it up
			return
		case "/release":
			release()
			return
		case "/files/held.json":
			select {
			case <-held:
			case <-r.Context().Done():
				return
			}
			http.ServeFile(w, r, filepath.Join(root, "examples", "mlp.json"))
			return
		case "/":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, embedPage, memplanSrv.URL, elements)
			return
		case "/files/huge.json":
			// Over the page's limit by its Content-Length: nothing need
			// follow, the element reads none of it.
			w.Header().Set("Content-Length", fmt.Sprint(planner.MaxInputBytes(planner.BrowserMemoryLimit)+1))
			w.WriteHeader(http.StatusOK)
			return
		case "/files/stream.json":
			// Over the limit with no length: streamed until the reader
			// stops reading.
			chunk := make([]byte, 1<<20)
			for n := int64(0); n <= planner.MaxInputBytes(planner.BrowserMemoryLimit); n += int64(len(chunk)) {
				if _, err := w.Write(chunk); err != nil {
					return
				}
				w.(http.Flusher).Flush()
			}
			return
		}
		f, ok := files[r.URL.Path]
		if !ok || f == "" {
			http.NotFound(w, r)
			return
		}
		http.ServeFile(w, r, f)
	}))
	t.Cleanup(hostSrv.Close)
	if strings.Split(hostSrv.URL, ":")[2] == strings.Split(memplanSrv.URL, ":")[2] {
		t.Fatal("the host and memplan share an origin")
	}
	ctx, cancel := browser.New(context.Background(), t.TempDir())
	t.Cleanup(cancel)
	ctx, cancelT := context.WithTimeout(ctx, 6*time.Minute)
	t.Cleanup(cancelT)
	s := &session{page: &page{t: t, ctx: ctx}, url: hostSrv.URL, served: served, root: root}
	s.run("viewport", chromedp.EmulateViewport(vw, vh), chromedp.Navigate(hostSrv.URL+"/blank"))
	s.scheme(scheme)
	s.run("open the host page", chromedp.Navigate(hostSrv.URL+"/"))
	return s
}

// pictureShows checks that element id's picture is on screen as Go drew
// it: the middle of its largest buffer (by area, from the picture's own
// SVG) has the buffer's fill, and a corner the picture's background. It
// returns the background.
func (p *page) pictureShows(id string) string {
	p.t.Helper()
	type spot struct {
		X, Y, BX, BY float64
		Fill, Bg     string
		Name         string
	}
	s := eval[spot](p, fmt.Sprintf(`(() => {
		const el = document.getElementById(%q), svg = new DOMParser().parseFromString(el.picture.svg, "image/svg+xml");
		const box = el.shadowRoot.querySelector("[part=error]"), f = el.getBoundingClientRect();
		const clear = box.hidden ? Infinity : box.getBoundingClientRect().top - f.top;
		let big = null, area = 0;
		for (const r of svg.querySelectorAll("rect.buffer")) {
			const a = r.width.baseVal.value * r.height.baseVal.value;
			if (a > area && r.y.baseVal.value + r.height.baseVal.value / 2 < clear) { area = a; big = r; }
		}
		if (!big) return {Name: ""};
		return {X: f.left + big.x.baseVal.value + big.width.baseVal.value / 2, Y: f.top + big.y.baseVal.value + big.height.baseVal.value / 2,
			BX: f.left + 3, BY: f.bottom - 3, Fill: big.getAttribute("fill"), Bg: svg.querySelector("rect.background").getAttribute("fill"),
			Name: big.dataset.name}; })()`, id))
	if s.Name == "" {
		p.fail("%s's picture has no buffer clear of its error box", id)
	}
	p.pixelBecomes(id+"'s picture of "+s.Name, s.X, s.Y, s.Fill)
	p.pixelBecomes(id+"'s picture's background", s.BX, s.BY, s.Bg)
	return s.Bg
}

// svgHas counts the elements of element id's picture that match sel.
func (p *page) svgHas(id, sel string) int {
	p.t.Helper()
	return eval[int](p, fmt.Sprintf(`new DOMParser().parseFromString(document.getElementById(%q).picture.svg, "image/svg+xml").querySelectorAll(%q).length`, id, sel))
}

// hexLuminance is a #rrggbb colour's relative luminance, 0 to 1.
func hexLuminance(hex string) float64 {
	var r, g, b int
	fmt.Sscanf(hex, "#%02x%02x%02x", &r, &g, &b)
	return (0.2126*float64(r) + 0.7152*float64(g) + 0.0722*float64(b)) / 255
}

// A docs page on another site with several widgets: one planner for all
// of them (planner.wasm and each worker's script fetched once, no viewer
// before the reader asks), a picture each, drawn by Go at the element's
// size in the host's colours, params left out of a real model unless an
// attribute keeps them, errors in the box; a click, or the keyboard,
// starts the live viewer in the same box, and at most two live at once.
func TestBrowserEmbedCrossOrigin(t *testing.T) {
	s := embedSession(t, "dark", embedElements, nil)
	p := s.page
	for _, id := range []string{"a", "b", "e"} {
		s.waitLong(id+"'s picture", fmt.Sprintf(`last(%q, "picture") !== null`, id))
	}
	// Drawn by Go at the element's size, in the host's (dark) colours.
	type size struct{ W, H, EW, EH int }
	if sz := eval[size](p, `(() => { const el = document.getElementById("a"), pic = el.picture;
		return {W: pic.width, H: pic.height, EW: Math.round(el.clientWidth), EH: Math.round(el.clientHeight)}; })()`); sz.W != sz.EW || sz.H != sz.EH {
		t.Errorf("a's picture is %d×%d, the element %d×%d", sz.W, sz.H, sz.EW, sz.EH)
	}
	darkBg := p.pictureShows("a")
	p.pictureShows("b")
	if hexLuminance(darkBg) > 0.3 {
		t.Errorf("a's picture on a dark page has the background %s", darkBg)
	}
	// One planner for the page: its wasm fetched once, a worker script
	// per worker of one small pool, and no viewer yet.
	req := s.served.Requests()
	if req["/planner.wasm"] != 1 || req["/runtime.js"] != 1 || req["/worker.js"] < 1 || req["/worker.js"] > 2 ||
		req["/memplan.wasm"] != 0 || req["/viewer.js"] != 0 {
		t.Errorf("three pictures fetched %v: want planner.wasm and runtime.js once, worker.js once a worker (at most 2), no viewer", req)
	}
	if n := eval[int](p, `document.querySelectorAll("memplan-plan").length - [...document.querySelectorAll("memplan-plan")].filter((el) => !el.shadowRoot.querySelector("iframe")).length`); n != 0 {
		t.Errorf("%d elements made a viewer before anyone asked", n)
	}
	// A real model's params are left out by default; skip-params="false"
	// keeps them.
	if n := p.svgHas("e", `rect.buffer[data-kind="param"]`); n != 0 {
		t.Errorf("mnist.onnx's picture draws %d params", n)
	}
	eval[bool](p, `(window.pics = count("e", "picture"), document.getElementById("e").setAttribute("skip-params", "false"), true)`)
	s.waitLong("e planned with its params", `count("e", "picture") > pics`)
	if n := p.svgHas("e", `rect.buffer[data-kind="param"]`); n == 0 {
		t.Error(`skip-params="false": mnist.onnx's picture draws no params`)
	}

	// An attribute changes the options: no-reuse gives every buffer its
	// own bytes, so the plot reaches higher; b does not plan again.
	top := func() float64 {
		return eval[float64](p, `+new DOMParser().parseFromString(document.getElementById("a").picture.svg, "image/svg+xml").querySelector("rect.plot").dataset.top`)
	}
	before := top()
	eval[bool](p, `(window.pics = count("a", "picture"), window.bPics = count("b", "picture"),
		document.getElementById("a").setAttribute("no-reuse", ""), true)`)
	s.wait("a planned again with no-reuse", `count("a", "picture") > pics`)
	if after := top(); after <= before {
		t.Errorf("no-reuse: the plot's top went from %v to %v", before, after)
	}
	if eval[bool](p, `count("b", "picture") !== bPics`) {
		t.Error("b planned again when a's attribute changed")
	}
	// The host turning light brings the pictures along.
	s.scheme("light")
	s.wait("a light picture", `last("a", "picture").theme === "light" && last("b", "picture").theme === "light"`)
	if lightBg := p.pictureShows("a"); hexLuminance(lightBg) < 0.7 {
		t.Errorf("a's picture on a light page has the background %s", lightBg)
	}

	// A broken file: the error names the place, and shows in the box (its
	// left border, in the theme's error colour).
	s.waitLong("c's error", `last("c", "error") !== null`)
	type loc struct {
		File, Path, Node string
		Line, Column     int
	}
	got := eval[loc](p, `(() => { const e = last("c", "error"); return {File: e.file, Path: e.path, Node: e.node, Line: e.line, Column: e.column}; })()`)
	if want := (loc{"broken.json", "nodes[1].dtype", "y", 6, 76}); got != want {
		t.Errorf("c's error at %+v, want %+v", got, want)
	}
	eval[bool](p, `(document.getElementById("c").scrollIntoView({block: "center"}), true)`)
	// With no picture behind it, the box sits in the middle: look at its
	// left border, wherever it is.
	cx := eval[float64](p, `document.getElementById("c").shadowRoot.querySelector("[part=error]").getBoundingClientRect().left + 1`)
	cy := eval[float64](p, `(() => { const r = document.getElementById("c").shadowRoot.querySelector("[part=error]").getBoundingClientRect(); return r.top + r.height / 2; })()`)
	p.pixelBecomes("c's error box", cx, cy, "#c0392b")
	// A src that does not load: the element says so itself.
	s.wait("d's error", `last("d", "error")?.message.includes("missing.json: HTTP 404")`)
	if msg := eval[string](p, `(() => { const b = document.getElementById("d").shadowRoot.querySelector("[part=error]"); return b.hidden ? "" : b.textContent; })()`); !strings.Contains(msg, "HTTP 404") {
		t.Errorf("d shows %q, want the fetch's 404", msg)
	}
	s.screenshot("embed-pictures")
	eval[bool](p, `(window.scrollTo(0, 0), true)`)

	// A click on a: the live viewer takes over the same box once it has
	// drawn the plan, and answers as the viewer does. (The hand-made
	// embed starts beside it.)
	eval[bool](p, `(makeRaw(), true)`)
	box := eval[[]float64](p, `(() => { const r = document.getElementById("a").getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; })()`)
	p.run("click a", chromedp.MouseClickXY(box[0]+box[2]/2, box[1]+box[3]/2))
	s.waitLong("a's live viewer", `last("a", "live") !== null && last("a", "summary") !== null`)
	if !eval[bool](p, `last("a", "summary").summary.options.no_reuse === true`) {
		t.Error("a's viewer did not take its no-reuse attribute")
	}
	if after := eval[[]float64](p, `(() => { const r = document.getElementById("a").getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; })()`); fmt.Sprint(after) != fmt.Sprint(box) {
		t.Errorf("a's box moved when its viewer took over: %v, then %v", box, after)
	}
	xa, ya, nameA, colorA := s.shownTensor("a")
	s.pixelBecomes("a's live "+nameA, xa, ya, colorA)
	s.screenshot("embed-live")

	// The hand-made embed: by now its program runs, yet nothing came from
	// it, since it does not know this origin (it never posts to "*"). A
	// ping tells it: the ready it held and a pong with the protocol's
	// version follow.
	if n := eval[int](p, `raw.length`); n != 0 {
		t.Errorf("the raw viewer posted %d events before it was pinged: %s", n, eval[string](p, `JSON.stringify(raw)`))
	}
	eval[bool](p, `(ping(), true)`)
	s.waitLong("the raw viewer's ready and pong", `raw.some((m) => m.type === "ready" && m.pings === 1) && raw.some((m) => m.type === "pong" && m.version >= 2)`)

	// At most two live viewers: b and e start theirs, and a, the least
	// recent, goes back to its picture.
	for _, id := range []string{"b", "e"} {
		eval[bool](p, fmt.Sprintf(`(document.getElementById(%q).scrollIntoView({block: "center"}), true)`, id))
		r := eval[[]float64](p, fmt.Sprintf(`(() => { const r = document.getElementById(%q).getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; })()`, id))
		p.run("click "+id, chromedp.MouseClickXY(r[0], r[1]))
		s.waitLong(id+"'s live viewer", fmt.Sprintf(`last(%q, "live") !== null`, id))
	}
	s.wait("a back to its picture", `!document.getElementById("a").shadowRoot.querySelector("iframe")`)
	if n := eval[int](p, `[...document.querySelectorAll("memplan-plan")].filter((el) => el.shadowRoot.querySelector("iframe")).length`); n != 2 {
		t.Errorf("%d live viewers, want 2", n)
	}

	// The keyboard: from the text above it, Tab reaches a, and the focus
	// starts its viewer again.
	eval[bool](p, `(window.scrollTo(0, 0), window.lives = count("a", "live"), true)`)
	above := eval[[]float64](p, `(() => { const r = document.getElementById("top").getBoundingClientRect(); return [r.left + 5, r.top + r.height / 2]; })()`)
	p.run("click the text", chromedp.MouseClickXY(above[0], above[1]))
	p.run("Tab", chromedp.KeyEvent(kb.Tab))
	s.wait("a focused", `document.activeElement === document.getElementById("a")`)
	s.waitLong("a's viewer again, from the keyboard", `count("a", "live") > lives`)
}

// A file over the page's limit is refused before it is read, by its
// Content-Length or, with none, as it streams in, in Go's words; the
// picture that was there stays.
func TestBrowserEmbedTooLarge(t *testing.T) {
	s := embedSession(t, "light", `<memplan-plan id="a" src="files/mlp.json" height="240"></memplan-plan>
<memplan-plan id="f" src="files/huge.json" height="120"></memplan-plan>`, nil)
	p := s.page
	limit := planner.MaxInputBytes(planner.BrowserMemoryLimit)
	s.waitLong("f's error", `last("f", "error") !== null`)
	if got, want := eval[string](p, `last("f", "error").message`), planner.CheckInput("huge.json", limit+1, planner.BrowserMemoryLimit).Error(); got != want {
		t.Errorf("f's error is %q, want Go's %q", got, want)
	}
	s.waitLong("a's picture", `last("a", "picture") !== null`)
	p.pictureShows("a")
	// a's file becomes one that streams past the limit: refused as it
	// comes in, and a's picture stays, with the error over it.
	eval[bool](p, `(document.getElementById("a").setAttribute("src", "files/stream.json"), true)`)
	s.waitLong("a's error", `last("a", "error") !== null`)
	if got, want := eval[string](p, `last("a", "error").message`), planner.StreamTooLarge("stream.json", planner.BrowserMemoryLimit).Error(); got != want {
		t.Errorf("a's error is %q, want Go's %q", got, want)
	}
	if eval[string](p, `last("a", "error").showing`) != "mlp.json" {
		t.Error("a's error does not say its picture of mlp.json stays")
	}
	p.pictureShows("a")
	s.screenshot("embed-too-large")
}

// When memplan's files cannot be loaded from the page, the page says
// what their host must fix: without CORS, embed.js does not load, and
// the element shows the text Go's snippet puts inside it; with embed.js
// loading but the planner's wasm missing, or without CORS, the element's
// box names the file and the fix.
func TestBrowserEmbedHostErrors(t *testing.T) {
	snippet := protocol.EmbedSnippet("embed.js", "mlp.json", protocol.DefaultOptions(), true)
	_, elem, _ := strings.Cut(snippet, "\n")
	elem = strings.Replace(elem, `src="mlp.json"`, `id="a" src="files/mlp.json" height="200"`, 1)
	for _, c := range []struct {
		name string
		wrap func(http.Handler) http.Handler
		want []string // in the box; none: the element is not defined
	}{
		{"nocors", func(h http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				h.ServeHTTP(noCORS{w}, r)
			})
		}, nil},
		{"nowasm", func(h http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if strings.HasSuffix(r.URL.Path, "/planner.wasm") {
					w.Header().Set("Access-Control-Allow-Origin", "*")
					http.NotFound(w, r)
					return
				}
				h.ServeHTTP(w, r)
			})
		}, []string{"planner.wasm is not at", "HTTP 404", "make site"}},
		{"wasmcors", func(h http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if strings.HasSuffix(r.URL.Path, ".wasm") {
					w = noCORS{w}
				}
				h.ServeHTTP(w, r)
			})
		}, []string{"planner.wasm at", "cannot be read from this page", "Access-Control-Allow-Origin"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := embedSession(t, "light", elem, c.wrap)
			p := s.page
			if c.want == nil {
				s.wait("embed.js to fail", `window.embedFailed === true`)
				if eval[bool](p, `!!customElements.get("memplan-plan")`) {
					t.Fatal("embed.js loaded without CORS")
				}
				if got, want := eval[string](p, `document.getElementById("a").textContent`), protocol.Fallback("mlp.json"); got != want {
					t.Errorf("the element shows %q, want the snippet's %q", got, want)
				}
				if h := eval[float64](p, `document.getElementById("a").getBoundingClientRect().height`); h < 10 {
					t.Errorf("the undefined element's text is %v px high", h)
				}
				s.screenshot("embed-no-cors")
				return
			}
			s.waitLong("a's error", `last("a", "error") !== null`)
			msg := eval[string](p, `(() => { const b = document.getElementById("a").shadowRoot.querySelector("[part=error]"); return b.hidden ? "" : b.textContent; })()`)
			for _, w := range c.want {
				if !strings.Contains(msg, w) {
					t.Errorf("the box says %q, want %q in it", msg, w)
				}
			}
			s.screenshot("embed-" + c.name)
		})
	}
}

// noCORS is a response that drops Access-Control-Allow-Origin, as a
// static host without CORS set-up sends it.
type noCORS struct{ http.ResponseWriter }

func (w noCORS) WriteHeader(code int) {
	w.Header().Del("Access-Control-Allow-Origin")
	w.ResponseWriter.WriteHeader(code)
}

func (w noCORS) Write(b []byte) (int, error) {
	w.Header().Del("Access-Control-Allow-Origin")
	return w.ResponseWriter.Write(b)
}

// shownTensor selects the largest buffer of element id's plan (its
// select event carries the rectangle and fill colour), checks that only
// that element answered, and returns the page point a third of the way
// into the rectangle and the colour Go says it is drawn in.
func (p *page) shownTensor(id string) (x, y float64, name, color string) {
	p.t.Helper()
	type pick struct{ Name string }
	// The plan's tensors follow its summary.
	p.wait(id+"'s tensors", fmt.Sprintf(`last(%[1]q, "tensors") !== null && last(%[1]q, "tensors").at >= last(%[1]q, "summary").at`, id))
	big := eval[pick](p, fmt.Sprintf(`(() => {
		const ts = JSON.parse(new TextDecoder().decode(last(%q, "tensors").tensors_json)).filter((t) => t.offset >= 0);
		ts.sort((u, v) => v.size * (v.death - v.birth + 1) - u.size * (u.death - u.birth + 1));
		return {Name: ts[0].name}; })()`, id))
	// Only this element answers. A select that reached another element
	// would show there as its select of that name, or of nothing (the
	// files' tensor names differ).
	eval[bool](p, `(window.sentAt = performance.now(), true)`)
	eval[bool](p, fmt.Sprintf(`(document.getElementById(%q).send({type: "select", name: %q}), true)`, id, big.Name))
	p.wait("the selection in "+id, fmt.Sprintf(`events[%q].some((e) => e.type === "select" && e.at > sentAt && e.tensor?.tensor.name === %q)`, id, big.Name))
	if eval[bool](p, fmt.Sprintf(`Object.entries(events).some(([k, v]) => k !== %q &&
		v.some((e) => e.type === "select" && e.at > sentAt && (!e.tensor || e.tensor.tensor.name === %q)))`, id, big.Name)) {
		p.fail("a select sent to %s reached another element", id)
	}
	type at struct {
		X, Y  float64
		Color string
	}
	r := eval[at](p, fmt.Sprintf(`(() => { const s = events[%q].filter((e) => e.type === "select" && e.at > sentAt).pop().tensor, r = s.rect;
		const f = document.getElementById(%q).getBoundingClientRect();
		return {X: f.left + r.x + r.w / 3, Y: f.top + r.y + r.h * 2 / 3, Color: s.color}; })()`, id, id))
	return r.X, r.Y, big.Name, r.Color
}

// waitLong is wait for something several viewers do at once.
func (p *page) waitLong(what, js string) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 3*time.Minute)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](js, chromedp.WithPollingInterval(100*time.Millisecond), chromedp.WithPollingTimeout(3*time.Minute))); err != nil {
		p.fail("waiting for %s (%s): %v", what, js, err)
	}
}

// pixelBecomes takes screenshots until the pixel at (x, y) is want (the
// viewer draws on its next frame), failing after a bounded number.
func (p *page) pixelBecomes(what string, x, y float64, want string) {
	p.t.Helper()
	got := ""
	for range 100 {
		if got = p.pixel(x, y); got == want {
			return
		}
	}
	p.fail("%s: pixel (%.0f, %.0f) is %s, want %s", what, x, y, got, want)
}

// copyWasm puts the built wasm programs into dir, as BuildSite would.
func copyWasm(t *testing.T, dir string) {
	t.Helper()
	for _, name := range []string{"memplan.wasm", site.WorkerFile} {
		b, err := os.ReadFile(filepath.Join(filepath.Dir(build.wasm), name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// The written site works from a plain static file server, one that also
// gets the wasm's Content-Type wrong (the pages fall back to compiling
// the bytes), and the single page works from file://.
func TestBrowserStaticSite(t *testing.T) {
	root := moduleRoot(t)
	dist := t.TempDir()
	copyWasm(t, dist)
	if err := site.CopySite(root, dist); err != nil {
		t.Fatal(err)
	}
	if err := site.WriteSingle(dist, filepath.Join(dist, "memplan.html")); err != nil {
		t.Fatal(err)
	}
	var total int64
	filepath.WalkDir(dist, func(p string, d fs.DirEntry, err error) error {
		if info, err := d.Info(); err == nil && !d.IsDir() {
			total += info.Size()
		}
		return nil
	})
	single, _ := os.Stat(filepath.Join(dist, "memplan.html"))
	t.Logf("dist: %.2f MB in all; memplan.html %.2f MB", float64(total)/1e6, float64(single.Size())/1e6)

	files := http.FileServer(http.Dir(dist))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, ".wasm") {
			w.Header().Set("Content-Type", "application/octet-stream") // a host that gets it wrong
		}
		files.ServeHTTP(w, r)
	}))
	defer srv.Close()
	ctx, cancel := browser.New(context.Background(), t.TempDir())
	defer cancel()
	ctx, cancelT := context.WithTimeout(ctx, 3*time.Minute)
	defer cancelT()
	p := &page{t: t, ctx: ctx}
	p.run("open the app", chromedp.EmulateViewport(1280, 800), chromedp.Navigate(srv.URL+"/index.html"))
	p.wait("the app's first plan", viewerShows("transformer.json"))
	p.shows("transformer.json", "l0.up")
	if eval[bool](p, `document.getElementById("embed").disabled`) {
		t.Error("Copy embed code is disabled with a plan on screen")
	}
	if snippet := eval[string](p, `window.memplanApp.embed || ""`); !strings.Contains(snippet, `<memplan-plan src="transformer.json"`) ||
		!strings.Contains(snippet, srv.URL+"/embed.js") {
		t.Errorf("the app's embed code is %q", snippet)
	}

	// The lessons, from the same static files: every lesson's plans and
	// facts (the ONNX model among them, fetched beside the lessons), lesson
	// 1's task done by dragging the time cursor to the peak and the last
	// one's by picking the tensor its peak's op writes.
	_, lessons := readLessons(t)
	p.run("open the lessons", chromedp.Navigate(srv.URL+"/learn.html"))
	p.waitLong("the lessons", `window.memplanLearn && window.memplanLearn.lessons.length > 0`)
	// Every lesson loads from the static files; the one that fetches a
	// model beside them, which a static site could break, is also done.
	model := slices.IndexFunc(lessons, func(l *lesson) bool { return l.File != nil && l.File.URL != "" })
	if model < 0 {
		t.Fatalf("no lesson fetches a model beside the lessons")
	}
	for i, l := range lessons {
		if i > 0 {
			p.clickElement("#next")
		}
		p.lessonReady(i, l.fileName())
		switch i {
		case 0:
			p.dragCursor(0, int(field(lessonFactsIn(t, l), "lesson.peak.step").(float64)))
			p.wait("lesson 1 done", `document.getElementById("task").classList.contains("done")`)
		case model:
			writes := field(lessonFactsIn(t, l), "lesson.peak.writes").([]any)
			if len(writes) == 0 {
				t.Fatalf("lesson %d has no tensor written at its peak", i+1)
			}
			eval[bool](p, fmt.Sprintf(`(() => { const s = document.getElementById("pick-tensor"); s.value = %q;
		s.dispatchEvent(new Event("change")); return true; })()`, writes[0]))
			p.wait("the model lesson done", `document.getElementById("task").classList.contains("done")`)
		}
	}

	// Compare, from the same static files: both sides planned and compared.
	p.run("open compare", chromedp.Navigate(srv.URL+"/compare.html"))
	p.waitLong("the comparison", `document.querySelectorAll("#totals tbody tr").length > 0`)

	// The docs page's widgets, loaded from the same static files: the
	// first's picture, then, clicked, its live viewer, whose summary the
	// page's script shows in Go's words.
	p.run("open the docs page", chromedp.Navigate(srv.URL+"/docs/index.html"))
	eval[bool](p, `(document.getElementById("mlp").scrollIntoView(), true)`)
	p.waitLong("the docs page's first picture", `!!document.getElementById("mlp").picture`)
	p.pictureShows("mlp")
	p.screenshot("docs-site")
	at := eval[[]float64](p, `(() => { const r = document.getElementById("mlp").getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; })()`)
	p.run("click the first widget", chromedp.MouseClickXY(at[0], at[1]))
	p.waitLong("the docs page's first widget, live", `document.getElementById("mlp-out").textContent.startsWith("mlp: arena")`)

	// The single file, from file://: its built-in example planned in a
	// worker made from the page itself.
	p.run("open memplan.html", chromedp.Navigate("file://"+filepath.Join(dist, "memplan.html")))
	p.wait("the single page's first picture", `window.memplan && window.memplan.state().file === "transformer.json"`)
	eval[bool](p, `(window.memplan.send({type: "example", name: "mlp.json"}), true)`)
	p.waitLong("mlp.json planned from file://", `window.memplan.state().file === "mlp.json" && !window.memplan.state().dirty`)
	p.screenshot("single-file")
}

// pictureFactsElements are widgets whose plans the test also makes in
// Go: the docs page's f32-uniform MLP at batch 512 (held to WebGPU's
// binding), a buffer list, and a real model over a budget and with its
// params. A node limit makes auto's plan the same on any machine.
var pictureFactsElements = []struct {
	id, src, file string
	attrs         map[string]string
	height        int
}{
	{"m", "files/mlp.json", "examples/mlp.json", map[string]string{"symbols": "batch=512", "f32-uniform": "", "node-limit": "20000"}, 300},
	{"b", "files/buffers.csv", "docs/site/buffers.csv", map[string]string{"strategy": "auto", "node-limit": "20000"}, 280},
	{"e", "files/mnist.onnx", "web/lessons/mnist.onnx", map[string]string{"budget": "16KiB", "node-limit": "20000"}, 320},
	// With its params: the widest legend of these.
	{"p", "files/mnist.onnx", "web/lessons/mnist.onnx", map[string]string{"skip-params": "false", "node-limit": "20000"}, 300},
}

// goFacts plans file as a widget with attrs plans it, in Go: the facts
// its picture event must carry.
func goFacts(t *testing.T, root, file string, attrs map[string]string) *protocol.PlanFacts {
	t.Helper()
	o, err := protocol.OptionsFromAttributes(attrs)
	if err == nil {
		err = protocol.ResolveGPU(&o)
	}
	if err == nil {
		err = o.ResolveFor("")
	}
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	data, err := os.ReadFile(filepath.Join(root, file))
	if err != nil {
		t.Fatalf("test input: %v", err)
	}
	name := filepath.Base(file)
	in, err := planner.Load(name, data, ir.DecodeOptions{Symbols: o.Symbols, MaxMemory: planner.BrowserMemoryLimit, IfBranch: o.IfBranch})
	if err != nil {
		t.Fatal(err)
	}
	prob, err := planner.Lower(in.Source, o.Options)
	if err != nil {
		t.Fatal(err)
	}
	p, _, err := planner.PlanProblem(context.Background(), prob, o.Strategy, planner.PlaceOptions{NodeLimit: o.NodeLimit, Budget: o.Budget})
	if err != nil {
		t.Fatal(err)
	}
	return protocol.FactsOf(name, p, planner.Judge(p, o.Budget))
}

// A docs page learns each widget's numbers from its picture event,
// before anyone clicks and with no viewer started: the facts of the plan
// (arena, lower bound, fit verdict, and the sentence that says them) as
// Go makes them for the same file and attributes. At a desktop's width
// and a phone's, each widget fires picture once as the page loads.
func TestBrowserEmbedPictureFacts(t *testing.T) {
	root := moduleRoot(t)
	var elems strings.Builder
	want := map[string]*protocol.PlanFacts{}
	for _, e := range pictureFactsElements {
		fmt.Fprintf(&elems, `<memplan-plan id=%q src=%q height="%d"`, e.id, e.src, e.height)
		for k, v := range e.attrs {
			fmt.Fprintf(&elems, ` %s=%q`, k, v)
		}
		elems.WriteString("></memplan-plan>\n")
		want[e.id] = goFacts(t, root, e.file, e.attrs)
	}
	for _, size := range []struct{ w, h int64 }{{1280, 800}, {390, 844}} {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			s := embedSessionAt(t, "light", elems.String(), nil, size.w, size.h)
			p := s.page
			for _, e := range pictureFactsElements {
				eval[bool](p, fmt.Sprintf(`(document.getElementById(%q).scrollIntoView(), true)`, e.id))
				s.waitLong(e.id+"'s picture", fmt.Sprintf(`last(%q, "picture") !== null`, e.id))
				var got protocol.PlanFacts
				if err := json.Unmarshal([]byte(eval[string](p, fmt.Sprintf(`JSON.stringify(last(%q, "picture").summary)`, e.id))), &got); err != nil {
					t.Fatalf("%s's picture event: %v", e.id, err)
				}
				if !reflect.DeepEqual(&got, want[e.id]) {
					t.Errorf("%s's picture tells %+v (fit %+v), Go's plan %+v (fit %+v)", e.id, got, got.Fit, *want[e.id], want[e.id].Fit)
				}
			}
			// Each picture's legend and title lie inside it, as the reader's
			// font draws them (measured in the page).
			for _, e := range pictureFactsElements {
				type box struct{ X0, X1, W float64 }
				for _, sel := range []string{"text.legend", "text[font-weight]"} {
					b := eval[box](p, fmt.Sprintf(`(() => { const pic = document.getElementById(%q).picture;
						const holder = document.createElement("div");
						holder.style = "position: absolute; left: 0; top: 0; visibility: hidden";
						holder.innerHTML = pic.svg;
						document.body.append(holder);
						const r = holder.querySelector(%q).getBBox();
						holder.remove();
						return {X0: r.x, X1: r.x + r.width, W: pic.width}; })()`, e.id, sel))
					if b.X0 < 0 || b.X1 > b.W || b.X1 <= b.X0 {
						t.Errorf("%s's %s runs from %.1f to %.1f in a picture %v wide", e.id, sel, b.X0, b.X1, b.W)
					}
				}
			}
			eval[bool](p, `(window.scrollTo(0, 0), true)`)
			if n := eval[int](p, `Object.values(events).flat().filter((e) => e.type === "live").length`); n != 0 {
				t.Errorf("%d live events before any click", n)
			}
			if req := s.served.Requests(); req["/memplan.wasm"] != 0 || req["/viewer.js"] != 0 {
				t.Errorf("the pictures' facts fetched the viewer: %v", req)
			}
			// Once the planner has nothing left to do (its workers end when
			// idle), each widget has fired picture once.
			p.waitIdle()
			for _, e := range pictureFactsElements {
				if n := eval[int](p, fmt.Sprintf(`count(%q, "picture")`, e.id)); n != 1 {
					t.Errorf("%s fired picture %d times on load, want once", e.id, n)
				}
			}
			s.screenshot(fmt.Sprintf("embed-facts-%dx%d", size.w, size.h))
		})
	}
}

// waitIdle waits, once a picture has come, until the page's shared
// planner has ended its workers, which it does once it has been idle a
// while: every element's work is done, and every event it fires has fired.
func (p *page) waitIdle() {
	p.t.Helper()
	p.waitLong("the planner to go idle", `[...memplanRuntimes.values()].every((rt) => !rt.pool)`)
}

// An element that comes near the viewport again while it is being
// planned or drawn (the page moved under a phone's narrow screen) is
// planned and drawn once: one plan asked of the planner, one picture, not
// one per time it came near. The test holds the element's file, then its
// picture's export, and moves the page at each.
func TestBrowserEmbedPictureOnce(t *testing.T) {
	s := embedSessionAt(t, "light", `<memplan-plan id="h" src="files/held.json" height="260"></memplan-plan>
<div style="height: 6000px"></div>`, nil, 390, 844)
	p := s.page
	// Every request to the planner, by type; exports wait for the test.
	// (runtime.js loads once the held file has come.)
	eval[bool](p, `(() => {
		window.asked = [];
		let gate, mr;
		window.exportsHeld = new Promise((r) => { gate = r; });
		window.releaseExports = gate;
		Object.defineProperty(globalThis, "MemplanRuntime", { configurable: true, get: () => mr, set: (v) => {
			mr = v;
			const ask = v.prototype.ask;
			v.prototype.ask = function (to, msg, tr) {
				asked.push(msg.type);
				if (msg.type === "export") return exportsHeld.then(() => ask.call(this, to, msg, tr));
				return ask.call(this, to, msg, tr);
			};
		} });
		return true; })()`)
	away := func(what string) {
		p.t.Helper()
		eval[bool](p, `(window.scrollTo(0, document.body.scrollHeight), true)`)
		p.wait("h away "+what, `document.getElementById("h").near === false`)
		eval[bool](p, `(window.scrollTo(0, 0), true)`)
		p.wait("h near again "+what, `document.getElementById("h").near === true`)
	}
	p.wait("h near", `document.getElementById("h").near === true`)
	away("while its file comes")
	eval[bool](p, `(fetch("/release"), true)`)
	s.waitLong("h's export", `asked.includes("export")`)
	away("while its picture is drawn")
	eval[bool](p, `(releaseExports(), true)`)
	s.waitLong("h's picture", `last("h", "picture") !== null`)
	p.waitIdle()
	if got := eval[string](p, `asked.filter((t) => t === "plan" || t === "export").join(" ")`); got != "plan export" {
		t.Errorf("the planner was asked %q, want one plan and one export", got)
	}
	if n := eval[int](p, `count("h", "picture")`); n != 1 {
		t.Errorf("h fired picture %d times, want once", n)
	}
	p.pictureShows("h")
}
