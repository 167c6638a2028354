//go:build !js

// Command widgetbench measures <memplan-plan> on a docs page: it builds
// the static site (make site), serves it as a static host does (CORS
// headers, precompressed wasm) and, from another origin, pages holding 1,
// 3 and 7 widgets of small graphs and real ONNX models, and reports in
// headless Chromium the time from opening each page to each widget's
// picture, the time from a click on a widget to its live viewer, and the
// browser's memory: the PSS of Chromium's whole process tree
// (/proc/<pid>/smaps_rollup) against the same page without widgets. The
// page and memplan's files are on two sites (localhost and 127.0.0.1).
//
//	go run ./tools/widgetbench [-runs 3] [-shots DIR]
//
// Each run starts a fresh browser (a cold cache), opens the page, then
// opens it again (a warm cache: HTTP and compiled wasm). It is a
// measurement, not a test: it prints figures and the goals beside them,
// and exits 0 either way unless it could not measure.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"memplan/tools/site"
	"memplan/tools/site/browser"
)

// widgets are the files a page shows, in order: a page of n widgets
// holds the first n. Small graphs and real models, as a docs page has.
var widgets = []struct{ file, path string }{
	{"mlp.json", "examples/mlp.json"},
	{"transformer.json", "examples/transformer.json"},
	{"mnist.onnx", "web/lessons/mnist.onnx"},
	{"buffers.csv", "docs/site/buffers.csv"},
	{"resnet50.onnx", "ir/onnx/testdata/light_resnet50.static.onnx"},
	{"ppocr_cls.onnx", "ir/onnx/testdata/ppocr_mobile_v2_cls.static.onnx"},
	{"bert_qa.onnx", "ir/onnx/testdata/tf_bert_qa.static.onnx"},
}

// pageHTML is a docs page of n widgets, each 180 px high between lines
// of text, so that seven lie within a screen of a 1280×800 viewport
// (the element plans what is near the viewport). Each element's picture
// and live events are timed from the page's opening
// (performance.now()).
func pageHTML(memplan string, n int) string {
	var b strings.Builder
	b.WriteString(`<!doctype html><html><head><meta charset="utf-8"><title>widgets</title>
<style>body { margin: 0 auto; max-width: 880px; padding: 8px 20px; font: 16px/1.5 system-ui, sans-serif; background: #fcfcfa; }
h1 { margin: 0.2em 0; } p { margin: 4px 0; }
memplan-plan { margin: 6px 0; }</style>`)
	if n > 0 {
		fmt.Fprintf(&b, `<script type="module" src="%s/embed.js"></script>`, memplan)
	}
	b.WriteString(`</head><body><h1>A page of plans</h1>
<script>window.pictures = {}; window.lives = {}; window.downs = {};
addEventListener("picture", (e) => { const id = e.target.id; if (!(id in pictures)) pictures[id] = performance.now(); }, true);
addEventListener("live", (e) => { lives[e.target.id] = performance.now(); }, true);
window.readies = {}; addEventListener("ready", (e) => { readies[e.target.id] = performance.now(); }, true);
addEventListener("pointerdown", (e) => { const el = e.target.closest && e.target.closest("memplan-plan"); if (el) downs[el.id] = performance.now(); }, true);
window.errors = []; addEventListener("error", (e) => { if (e.detail) errors.push(e.target.id + ": " + e.detail.message); }, true);
</script>`)
	for i := range 7 {
		fmt.Fprintf(&b, "<p>Paragraph %d of the docs.</p>\n", i+1)
		if i < n {
			fmt.Fprintf(&b, `<memplan-plan id="w%d" src="files/%s" height="180"></memplan-plan>`+"\n", i, widgets[i].file)
		} else {
			b.WriteString(`<div style="height: 180px; margin: 6px 0"></div>` + "\n")
		}
	}
	b.WriteString("</body></html>")
	return b.String()
}

func main() {
	runs := flag.Int("runs", 3, "fresh browsers per page")
	shots := flag.String("shots", "", "save a screenshot of each page, pictures up, to this folder")
	pages := flag.String("pages", "1,3,7", "the pages: how many widgets each holds")
	flag.Parse()
	if !browser.Available() {
		log.Fatalf("widgetbench needs %s", browser.Path)
	}
	wd, _ := os.Getwd()
	root, err := site.ModuleRoot(wd)
	if err != nil {
		log.Fatal(err)
	}
	tmp, err := os.MkdirTemp("", "widgetbench")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	dist := filepath.Join(tmp, "dist")
	fmt.Println("building the site…")
	if err := site.BuildSite(context.Background(), root, dist); err != nil {
		log.Fatal(err)
	}
	// memplan's files as a static host serves them (tools/serve -dist).
	memplan := httptest.NewServer(site.Handler(dist, filepath.Join(dist, "memplan.wasm")))
	defer memplan.Close()
	host := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if name, ok := strings.CutPrefix(r.URL.Path, "/files/"); ok {
			for _, wd := range widgets {
				if wd.file == name {
					http.ServeFile(w, r, filepath.Join(root, wd.path))
					return
				}
			}
			http.NotFound(w, r)
			return
		}
		n, err := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/page"))
		if err != nil || n < 0 || n > len(widgets) {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, pageHTML(memplan.URL, n))
	}))
	defer host.Close()
	// The page on another site than memplan's (as a docs page is), so that
	// the browser gives a live viewer a process of its own, as it would.
	hostURL := strings.Replace(host.URL, "127.0.0.1", "localhost", 1)

	fmt.Printf("load average before: %s\n", loadavg())
	fmt.Printf("%d run(s) a page, each in a fresh browser; times in ms from opening the page, PSS in MiB\n\n", *runs)
	for _, f := range strings.Split(*pages, ",") {
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 || n > len(widgets) {
			log.Fatalf("-pages: %q is not a count of 1 to %d", f, len(widgets))
		}
		var cold, warm [][]float64
		var live, blank, pics, lives, blankMem, picsMem, livesMem []float64
		for run := range *runs {
			r := measure(hostURL, n, filepath.Join(tmp, fmt.Sprintf("profile-%d-%d", n, run)), *shots != "" && run == 0, *shots)
			cold, warm, live = append(cold, r.cold), append(warm, r.warm), append(live, r.live)
			blank, pics, lives = append(blank, r.blank.all), append(pics, r.pss.all), append(lives, r.livePSS.all)
			blankMem, picsMem, livesMem = append(blankMem, r.blank.mem), append(picsMem, r.pss.mem), append(livesMem, r.livePSS.mem)
		}
		fmt.Printf("%d widget(s):\n", n)
		for k := range n {
			fmt.Printf("  %-17s picture cold %s, warm %s\n", widgets[k].file, spread(column(cold, k)), spread(column(warm, k)))
		}
		fmt.Printf("  every picture      cold %s, warm %s (goal: 7 widgets within 2500; one widget warm within 1000)\n", spread(lasts(cold)), spread(lasts(warm)))
		fmt.Printf("  click → live       %s (goal <= 1500)\n", spread(live))
		fmt.Printf("  PSS                blank page %s, with the pictures %s: %s more (goal for 7 <= +250); one live viewer %s more\n",
			spread(blank), spread(pics), spread(diff(pics, blank)), spread(diff(lives, blank)))
		fmt.Printf("  PSS not in files   blank page %s, with the pictures %s: %s more; one live viewer %s more\n\n",
			spread(blankMem), spread(picsMem), spread(diff(picsMem, blankMem)), spread(diff(livesMem, blankMem)))
	}
	fmt.Printf("load average after: %s\n", loadavg())
}

type result struct {
	cold, warm          []float64 // each widget's picture, ms from opening
	live                float64   // a click on the first to its live viewer, ms
	blank, pss, livePSS pss       // the blank page, the pictures, one live viewer
}

// measure opens a fresh browser on the blank page (its PSS), then the
// page of n widgets until every picture is up (the times and the PSS),
// opens it again on the warm cache, and clicks the first widget.
func measure(hostURL string, n int, profile string, shoot bool, shots string) result {
	ctx, cancel := browser.New(context.Background(), profile)
	defer cancel()
	ctx, cancelT := context.WithTimeout(ctx, 5*time.Minute)
	defer cancelT()
	must := func(what string, err error) {
		if err != nil {
			log.Fatalf("%d widgets: %s: %v", n, what, err)
		}
	}
	must("open the blank page", chromedp.Do(ctx, chromedp.EmulateViewport(1280, 800), chromedp.Navigate(hostURL+"/page0")))
	pid := chromedp.FromContext(ctx).Browser.Process().Pid
	var r result
	r.blank = settledPSS(pid)
	open := func() []float64 {
		must("open the page", chromedp.Do(ctx, chromedp.Navigate(hostURL+"/page"+strconv.Itoa(n))))
		all := fmt.Sprintf(`Object.keys(window.pictures || {}).length === %d`, n)
		_, err := chromedp.Run(ctx, chromedp.Poll[bool](all+` || errors.length > 0`, chromedp.WithPollingInterval(20*time.Millisecond), chromedp.WithPollingTimeout(2*time.Minute)))
		if err != nil {
			got, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`JSON.stringify(pictures)`))
			log.Fatalf("%d widgets: the pictures: %v (pictures so far: %s)", n, err, got)
		}
		if errs, _ := chromedp.Run(ctx, chromedp.Evaluate[[]string](`errors`)); len(errs) > 0 {
			log.Fatalf("%d widgets: %s", n, strings.Join(errs, "\n"))
		}
		times, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](fmt.Sprintf(`Array.from({length: %d}, (_, k) => pictures["w" + k])`, n)))
		must("the times", err)
		return times
	}
	r.cold = open()
	r.pss = settledPSS(pid)
	if shoot {
		b, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		if err == nil {
			os.MkdirAll(shots, 0o755)
			os.WriteFile(filepath.Join(shots, fmt.Sprintf("widgets-%d.png", n)), b, 0o644)
		}
	}
	r.warm = open()
	// A click in the middle of the first widget: the pointer moves there,
	// as a reader's does, then presses.
	type box struct{ X, Y float64 }
	at, err := chromedp.Run(ctx, chromedp.Evaluate[box](`(() => { const r = document.getElementById("w0").getBoundingClientRect(); return {X: r.left + r.width / 2, Y: r.top + r.height / 2}; })()`))
	must("the first widget", err)
	must("click", chromedp.Do(ctx,
		chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, at.X, at.Y),
		chromedp.MouseEvent(input.DispatchMouseEventTypeMousePressed, at.X, at.Y, chromedp.ButtonLeft, chromedp.ClickCount(1)),
		chromedp.MouseEvent(input.DispatchMouseEventTypeMouseReleased, at.X, at.Y, chromedp.ButtonLeft, chromedp.ClickCount(1))))
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](`"w0" in lives`, chromedp.WithPollingInterval(20*time.Millisecond), chromedp.WithPollingTimeout(2*time.Minute)))
	must("the live viewer", err)
	r.live, err = chromedp.Run(ctx, chromedp.Evaluate[float64](`lives.w0 - downs.w0`))
	must("the live time", err)
	if os.Getenv("WIDGETBENCH_DEBUG") != "" {
		rd, _ := chromedp.Run(ctx, chromedp.Evaluate[float64](`readies.w0 - downs.w0`))
		fmt.Printf("    (click → viewer ready %.0f ms, → live %.0f ms)\n", rd, r.live)
	}
	r.livePSS = settledPSS(pid)
	if shoot {
		b, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		if err == nil {
			os.WriteFile(filepath.Join(shots, fmt.Sprintf("widgets-%d-live.png", n)), b, 0o644)
		}
	}
	return r
}

// settledPSS is the PSS of the browser's process tree in MiB, and its
// part not in files, once the page has settled: the medians of three
// readings a second apart, after four seconds (the elements' planner
// ends its workers after three idle).
func settledPSS(pid int) pss {
	time.Sleep(4 * time.Second)
	var xs, ys []float64
	for range 3 {
		x, y := treePSS(pid)
		xs, ys = append(xs, x), append(ys, y)
		time.Sleep(time.Second)
	}
	slices.Sort(xs)
	slices.Sort(ys)
	return pss{xs[1], ys[1]}
}

// pss is memory in MiB: all of it, and the part not in files.
type pss struct{ all, mem float64 }

// treePSS sums Pss over pid and its descendants, from smaps_rollup, and
// the part of it that is not files' (Pss_Anon and Pss_Shmem): the
// browser's files are shared with any other Chromium on the machine,
// which makes their share of the PSS move with what else runs.
func treePSS(root int) (float64, float64) {
	kb, mem := 0, 0
	for _, pid := range browser.ProcessTree(root) {
		b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "smaps_rollup"))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			k, v, _ := strings.Cut(line, ":")
			n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			switch k {
			case "Pss":
				kb += n
			case "Pss_Anon", "Pss_Shmem":
				mem += n
			}
		}
	}
	return float64(kb) / 1024, float64(mem) / 1024
}

func column(xs [][]float64, k int) []float64 {
	var out []float64
	for _, x := range xs {
		out = append(out, x[k])
	}
	return out
}

func lasts(xs [][]float64) []float64 {
	var out []float64
	for _, x := range xs {
		out = append(out, slices.Max(x))
	}
	return out
}

func diff(a, b []float64) []float64 {
	out := make([]float64, len(a))
	for i := range a {
		out[i] = a[i] - b[i]
	}
	return out
}

// spread is the median and, for several runs, the range.
func spread(xs []float64) string {
	s := slices.Clone(xs)
	slices.Sort(s)
	med := s[len(s)/2]
	if len(s)%2 == 0 {
		med = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	if len(s) == 1 {
		return fmt.Sprintf("%.0f", med)
	}
	return fmt.Sprintf("%.0f (%.0f–%.0f)", med, s[0], s[len(s)-1])
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	return strings.Join(f[:min(3, len(f))], " ")
}
