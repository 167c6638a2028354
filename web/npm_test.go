package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"memplan/ir"
	"memplan/planner"
	"memplan/tools/npm/npmpkg"
	"memplan/tools/site/browser"
)

// npmPage is a host page that imports the npm package's module from
// another origin (%[1]s, as from a CDN) and calls it as a user's script
// would: plan, verify (of its record, then of one with an offset moved),
// svg, a malformed file, an abort, and the size limit. window.npm holds
// the answers, or window.npmFailed the failure.
const npmPage = `<!doctype html><html><head><meta charset="utf-8"></head><body>
<script type="module">
try {
  window.npmStep = "import";
  const memplan = await import("%[1]s/index.mjs");
  window.npmStep = "plan";
  const bytes = new Uint8Array(await (await fetch("/files/mlp.json")).arrayBuffer());
  const fields = (e) => Object.assign({ name: e.name, message: e.message, isError: e instanceof Error }, e);
  const out = {};
  const record = await memplan.plan(new File([bytes], "mlp.json"), { nodeLimit: %[2]d });
  out.arena = record.arena_size;
  out.offsets = record.tensors.map((t) => t.offset);
  window.npmStep = "verify";
  out.valid = await memplan.verify(record, bytes, { name: "mlp.json" });
  const moved = structuredClone(record);
  moved.tensors[moved.tensors.length - 1].offset += 64;
  const v = await memplan.verify(moved, bytes, { name: "mlp.json" });
  out.moved = { ok: v.ok, errors: v.errors.map(fields) };
  window.npmStep = "svg";
  out.svg = (await memplan.svg(record, { width: 400, height: 200, theme: "dark" })).slice(0, 400);
  const bad = new TextDecoder().decode(bytes).replace('"inputs": ["a1", "w2"]', '"inputs": ["a1", "nope"]');
  try { await memplan.plan(bad, { name: "bad.json" }); } catch (e) { out.malformed = fields(e); }
  window.npmStep = "abort";
  const c = new AbortController();
  const aborted = memplan.plan(bytes, { name: "mlp.json", signal: c.signal, onProgress: () => c.abort() });
  try { await aborted; } catch (e) { out.aborted = fields(e); }
  window.npmStep = "limit";
  out.limit = await memplan.maxInputBytes();
  window.npm = out;
} catch (e) {
  window.npmFailed = String(e && e.stack ? e.stack : e);
}
</script></body></html>`

// TestBrowserPackage: the npm package, served from one origin, plans
// from a page on another in Chromium (a module worker the package starts
// from a blob of the page's origin), with the command line's arena and
// offsets, and its errors as fields.
func TestBrowserPackage(t *testing.T) {
	root := moduleRoot(t)
	pkg := filepath.Join(t.TempDir(), "package")
	if _, err := npmpkg.Build(context.Background(), root, pkg); err != nil {
		t.Fatal(err)
	}
	files := http.FileServer(http.Dir(pkg))
	pkgSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// What a CDN serves: any origin may import the module and fetch
		// the wasm.
		w.Header().Set("Access-Control-Allow-Origin", "*")
		switch filepath.Ext(r.URL.Path) {
		case ".mjs", ".js":
			w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
		case ".wasm":
			w.Header().Set("Content-Type", "application/wasm")
		}
		files.ServeHTTP(w, r)
	}))
	t.Cleanup(pkgSrv.Close)
	const nodeLimit = 1 << 40 // auto's slice by its node budget, not a clock
	mlp := filepath.Join(root, "examples", "mlp.json")
	hostSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, npmPage, pkgSrv.URL, nodeLimit)
		case "/files/mlp.json":
			http.ServeFile(w, r, mlp)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(hostSrv.Close)
	if strings.Split(hostSrv.URL, ":")[2] == strings.Split(pkgSrv.URL, ":")[2] {
		t.Fatal("the host and the package share an origin")
	}
	ctx, cancel := browser.New(context.Background(), t.TempDir())
	t.Cleanup(cancel)
	ctx, cancelT := context.WithTimeout(ctx, 4*time.Minute)
	t.Cleanup(cancelT)
	p := &page{t: t, ctx: ctx}
	p.run("open the host page", chromedp.Navigate(hostSrv.URL+"/"))
	if !p.poll("!!(window.npm || window.npmFailed)") {
		t.Fatalf("the page's script did not finish: it was at %s", eval[string](p, "String(window.npmStep)"))
	}
	if failed := eval[string](p, "window.npmFailed || ''"); failed != "" {
		t.Fatalf("the page's script failed: %s", failed)
	}
	raw := eval[string](p, "JSON.stringify(window.npm)")
	var got struct {
		Arena   int64   `json:"arena"`
		Offsets []int64 `json:"offsets"`
		Valid   struct {
			OK bool `json:"ok"`
		} `json:"valid"`
		Moved struct {
			OK     bool `json:"ok"`
			Errors []struct {
				File    string `json:"file"`
				IsError bool   `json:"isError"`
			} `json:"errors"`
		} `json:"moved"`
		SVG       string `json:"svg"`
		Malformed struct {
			Name, File, Path, Node, Kind string
			Line                         int
		} `json:"malformed"`
		Aborted struct {
			Name string `json:"name"`
		} `json:"aborted"`
		Limit int64 `json:"limit"`
	}
	if err := json.Unmarshal([]byte(raw), &got); err != nil {
		t.Fatalf("%v: %s", err, raw)
	}

	// The command line's plan: the same planner, the same node budget.
	data, err := os.ReadFile(mlp)
	if err != nil {
		t.Fatal(err)
	}
	in, err := planner.Load("mlp.json", data, ir.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := planner.PlanSource(context.Background(), in.Source, planner.DefaultOptions(), "auto", planner.PlaceOptions{NodeLimit: nodeLimit})
	if err != nil {
		t.Fatal(err)
	}
	if got.Arena != want.ArenaSize || len(got.Offsets) != len(want.Tensors) {
		t.Errorf("the page's plan: arena %d, %d tensors; Go's: arena %d, %d tensors", got.Arena, len(got.Offsets), want.ArenaSize, len(want.Tensors))
	} else {
		for i, tw := range want.Tensors {
			if got.Offsets[i] != tw.Offset {
				t.Errorf("tensor %s at %d in the page's plan, %d in Go's", tw.Name, got.Offsets[i], tw.Offset)
			}
		}
	}
	if !got.Valid.OK {
		t.Errorf("verify of the page's own record: not ok (%s)", raw)
	}
	if got.Moved.OK || len(got.Moved.Errors) == 0 || !got.Moved.Errors[0].IsError || got.Moved.Errors[0].File == "" {
		t.Errorf("verify of a record with an offset moved: %+v, want not ok with located errors", got.Moved)
	}
	if !strings.HasPrefix(got.SVG, "<svg") || !strings.Contains(got.SVG, `width="400"`) {
		t.Errorf("svg: %q", got.SVG)
	}
	if m := got.Malformed; m.Name != "MemplanError" || m.File != "bad.json" || m.Path != "nodes[9].inputs[1]" || m.Node != "h2" || m.Line != 15 {
		t.Errorf("a malformed file: %+v, want a MemplanError at bad.json:15, nodes[9].inputs[1], node h2", m)
	}
	if got.Aborted.Name != "AbortError" {
		t.Errorf("an aborted call: %+v, want AbortError", got.Aborted)
	}
	if got.Limit != planner.MaxInputBytes(planner.BrowserMemoryLimit) {
		t.Errorf("maxInputBytes %d, want Go's %d", got.Limit, planner.MaxInputBytes(planner.BrowserMemoryLimit))
	}
}
