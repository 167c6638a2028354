//go:build !js

package web

import (
	"context"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"memplan/tools/site"
	"memplan/tools/site/browser"
)

// embedPage is a docs page on one origin whose <memplan-plan> elements
// load embed.js (and the viewer) from another. Every event an element
// fires is recorded in window.events[id], with the time it came.
const embedPage = `<!doctype html><html><head><meta charset="utf-8">
<script type="module" src="%[1]s/embed.js"></script></head>
<body style="margin:0; font: 14px sans-serif">
<memplan-plan id="a" src="files/mlp.json" strategy="auto" height="260"></memplan-plan>
<memplan-plan id="b" src="files/buffers.csv" height="260"></memplan-plan>
<memplan-plan id="c" src="files/broken.json" height="160"></memplan-plan>
<memplan-plan id="d" src="files/missing.json" height="100"></memplan-plan>
<script>
  window.events = {};
  for (const id of ["a", "b", "c", "d"]) {
    window.events[id] = [];
    for (const type of ["ready", "summary", "select", "error"]) {
      document.getElementById(id).addEventListener(type, (e) => window.events[id].push(Object.assign({at: performance.now()}, e.detail)));
    }
  }
  // The last event of a type an element fired, or null.
  window.last = (id, type) => window.events[id].filter((e) => e.type === type).pop() || null;
</script>
<!-- The handshake by hand: a viewer told nothing of this origin, pinged by the test. -->
<iframe id="raw" src="%[1]s/viewer.html?blank" style="position: fixed; right: 0; bottom: 0; width: 2px; height: 2px; border: 0"></iframe>
<script>
  window.raw = []; window.pings = 0;
  const rawFrame = document.getElementById("raw");
  window.addEventListener("message", (e) => {
    if (e.source === rawFrame.contentWindow) raw.push({type: e.data.type, version: e.data.version, pings, origin: e.origin});
  });
  window.ping = () => { pings++; rawFrame.contentWindow.postMessage({type: "ping"}, "%[1]s"); };
</script>
</body></html>`

// embedSession serves memplan from one origin and a host page with its
// files from another, and opens the host page in a browser.
func embedSession(t *testing.T, scheme string) *session {
	root := moduleRoot(t)
	memplanSrv := httptest.NewServer(site.Handler(filepath.Join(root, "web"), build.wasm))
	t.Cleanup(memplanSrv.Close)
	files := map[string]string{
		"/files/mlp.json":     filepath.Join(root, "examples", "mlp.json"),
		"/files/buffers.csv":  filepath.Join(root, "docs", "site", "buffers.csv"),
		"/files/broken.json":  filepath.Join(root, "docs", "site", "broken.json"),
		"/files/missing.json": "",
	}
	hostSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/blank" { // where the browser waits while the test sets it up
			return
		}
		if r.URL.Path == "/" {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, embedPage, memplanSrv.URL)
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
	s := &session{page: &page{t: t, ctx: ctx}, url: hostSrv.URL, root: root}
	s.run("viewport", chromedp.EmulateViewport(1280, 800), chromedp.Navigate(hostSrv.URL+"/blank"))
	s.scheme(scheme)
	s.run("open the host page", chromedp.Navigate(hostSrv.URL+"/"))
	return s
}

// shownTensor selects the largest buffer of element id's plan (its
// select event carries the rectangle and fill colour), checks that only
// that element answered, and returns the page point a third of the way
// into the rectangle and the colour Go says it is drawn in.
func (p *page) shownTensor(id string) (x, y float64, name, color string) {
	p.t.Helper()
	type pick struct{ Name string }
	big := eval[pick](p, fmt.Sprintf(`(() => {
		const ts = JSON.parse(new TextDecoder().decode(last(%q, "summary").tensors_json)).filter((t) => t.offset >= 0);
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

func TestBrowserEmbedCrossOrigin(t *testing.T) {
	s := embedSession(t, "dark")
	// Both plans come up, each in its own element.
	// Four viewers start at once: on a loaded machine that takes a while.
	s.waitLong("mlp.json planned in a", `last("a", "summary")?.file === "mlp.json"`)
	s.waitLong("buffers.csv planned in b", `last("b", "summary")?.file === "buffers.csv"`)
	// The hand-made embed, started with the others: by now its program
	// runs, yet nothing came from it, since it does not know this origin
	// (it never posts to "*"). A ping tells it: the ready it held and a
	// pong with the protocol's version follow.
	if n := eval[int](s.page, `raw.length`); n != 0 {
		t.Errorf("the raw viewer posted %d events before it was pinged: %s", n, eval[string](s.page, `JSON.stringify(raw)`))
	}
	eval[bool](s.page, `(ping(), true)`)
	s.wait("the raw viewer's ready and pong", `raw.some((m) => m.type === "ready" && m.pings === 1) &&
		raw.some((m) => m.type === "pong" && m.version >= 2)`)
	firstPicture := eval[float64](s.page, `events.a.find((e) => e.type === "summary").at`)
	t.Logf("load to first picture (a's first summary): %.0f ms", firstPicture)
	if r := eval[int](s.page, `events.a.filter((e) => e.type === "ready").length`); r != 1 {
		t.Errorf("a fired %d ready events, want 1", r)
	}
	if v := eval[int](s.page, `last("a", "ready").version`); v < 2 {
		t.Errorf("ready carries version %d", v)
	}
	if got := eval[string](s.page, `last("a", "summary").summary.strategy`); got != "auto" {
		t.Errorf("a planned with strategy %q", got)
	}

	xa, ya, nameA, darkA := s.shownTensor("a")
	s.pixelBecomes("a's "+nameA, xa, ya, darkA)
	xb, yb, nameB, darkB := s.shownTensor("b")
	s.pixelBecomes("b's "+nameB, xb, yb, darkB)

	// An attribute changes the options: no-reuse gives every buffer its
	// own bytes, so the arena is the sum of them all.
	before := eval[float64](s.page, `last("a", "summary").summary.arena_size`)
	eval[bool](s.page, `(window.plans = events.a.length, window.bPlans = events.b.filter((e) => e.type === "summary").length,
		document.getElementById("a").setAttribute("no-reuse", ""), true)`)
	s.wait("a re-planned with no-reuse", `events.a.slice(plans).some((e) => e.type === "summary")`)
	after := eval[float64](s.page, `last("a", "summary").summary.arena_size`)
	unshared := eval[float64](s.page, `last("a", "summary").summary.total_unshared`)
	if after <= before || after < unshared {
		t.Errorf("no-reuse: arena %v → %v, want at least the unshared %v", before, after, unshared)
	}
	if eval[bool](s.page, `events.b.filter((e) => e.type === "summary").length !== bPlans`) {
		t.Error("b re-planned when a's attribute changed")
	}

	// theme="light" on a: its colours become the light theme's; b stays dark.
	eval[bool](s.page, `(document.getElementById("a").setAttribute("theme", "light"), true)`)
	xa, ya, nameA, lightA := s.shownTensor("a")
	if lightA == darkA {
		t.Errorf("%s is %s in both themes", nameA, lightA)
	}
	s.pixelBecomes("a's "+nameA+" in the light theme", xa, ya, lightA)
	s.pixelBecomes("b's "+nameB+" still dark", xb, yb, darkB)

	// The host's scheme turning light brings b along (it has no theme).
	s.scheme("light")
	s.wait("b to take the host's scheme", `document.getElementById("b").dataset.theme === "light"`) // the change event follows the match
	xb, yb, nameB, lightB := s.shownTensor("b")
	if lightB == darkB {
		t.Errorf("b's %s is %s in both themes", nameB, lightB)
	}
	s.pixelBecomes("b's "+nameB+" after the host turned light", xb, yb, lightB)

	// A broken file: the error names the place, and shows in the widget
	// (its box's left border, in the theme's error colour).
	s.waitLong("c's error", `last("c", "error") !== null`)
	type loc struct {
		File, Path, Node string
		Line, Column     int
	}
	got := eval[loc](s.page, `(() => { const e = last("c", "error"); return {File: e.file, Path: e.path, Node: e.node, Line: e.line, Column: e.column}; })()`)
	if want := (loc{"broken.json", "nodes[1].dtype", "y", 6, 76}); got != want {
		t.Errorf("c's error at %+v, want %+v", got, want)
	}
	cx := eval[float64](s.page, `document.getElementById("c").getBoundingClientRect().left + 13`)
	cy := eval[float64](s.page, `document.getElementById("c").getBoundingClientRect().bottom - 20`)
	s.pixelBecomes("c's error box", cx, cy, "#c0392b")
	// A src that does not load: the element says so itself.
	s.wait("d's error", `last("d", "error")?.message.includes("missing.json: HTTP 404")`)
	if msg := eval[string](s.page, `(() => { const b = document.getElementById("d").shadowRoot.querySelector("[part=error]"); return b.hidden ? "" : b.textContent; })()`); !strings.Contains(msg, "HTTP 404") {
		t.Errorf("d shows %q, want the fetch's 404", msg)
	}
	s.screenshot("embed-cross-origin")
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
	for i, l := range lessons {
		if i > 0 {
			p.clickElement("#next")
		}
		p.lessonReady(i, l.fileName())
		if i == 0 {
			p.dragCursor(0, int(field(lessonFactsIn(t, l), "lesson.peak.step").(float64)))
			p.wait("lesson 1 done", `document.getElementById("task").classList.contains("done")`)
		}
	}
	last := len(lessons) - 1
	writes := field(lessonFactsIn(t, lessons[last]), "lesson.peak.writes").([]any)
	if lessons[last].File == nil || lessons[last].File.URL == "" || len(writes) == 0 {
		t.Fatalf("the last lesson is not the one that fetches a model beside the lessons")
	}
	eval[bool](p, fmt.Sprintf(`(() => { const s = document.getElementById("pick-tensor"); s.value = %q;
		s.dispatchEvent(new Event("change")); return true; })()`, writes[0]))
	p.wait("the last lesson done", `document.getElementById("task").classList.contains("done")`)

	// Compare, from the same static files: both sides planned and compared.
	p.run("open compare", chromedp.Navigate(srv.URL+"/compare.html"))
	p.waitLong("the comparison", `document.querySelectorAll("#totals tbody tr").length > 0`)

	// The docs page's widgets, loaded from the same static files.
	p.run("open the docs page", chromedp.Navigate(srv.URL+"/docs/index.html"))
	eval[bool](p, `(document.getElementById("mlp").scrollIntoView(), true)`)
	p.waitLong("the docs page's first widget", `document.getElementById("mlp-out").textContent.startsWith("mlp: arena")`)
	p.screenshot("docs-site")

	// The single file, from file://: its built-in example planned in a
	// worker made from the page itself.
	p.run("open memplan.html", chromedp.Navigate("file://"+filepath.Join(dist, "memplan.html")))
	p.wait("the single page's first picture", `window.memplan && window.memplan.state().file === "transformer.json"`)
	eval[bool](p, `(window.memplan.send({type: "example", name: "mlp.json"}), true)`)
	p.waitLong("mlp.json planned from file://", `window.memplan.state().file === "mlp.json" && !window.memplan.state().dirty`)
	p.screenshot("single-file")
}
