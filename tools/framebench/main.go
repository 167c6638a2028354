//go:build !js

// Command framebench measures the web viewer with a large plan: it builds
// the wasm, serves the app, loads a plan of 100k buffers in headless
// Chromium, then reports frames per second while panning and while zooming
// the whole plan, and the gzipped bytes the page downloads. Beside each
// rate it prints the CPU time each of Chromium's processes spent a frame
// (from /proc, on Linux): WebGL runs on SwiftShader in the GPU process,
// whose work the page's own clock hardly shows.
//
//	go run ./tools/framebench [-n 100000] [-seconds 3]
//	go run ./tools/framebench -profile 30   # and the page's busiest functions
//	go run ./tools/framebench -trace 15     # or the busiest threads' trace events
//
// It is a measurement, not a test: it prints figures and the goals beside
// them, and exits 0 either way unless it could not measure.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"maps"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/chromedp/chromedp"

	"memplan/ir"
	"memplan/planner"
	"memplan/tools/site"
	"memplan/tools/site/browser"
)

func main() {
	n := flag.Int("n", 100000, "buffers in the plan")
	seconds := flag.Float64("seconds", 3, "seconds to measure each motion")
	strategy := flag.String("strategy", "first-use", "strategy that places the synthetic buffers")
	extra := flag.String("file", "", "also time planning and drawing this file (graph JSON, ONNX, CSV) in the browser")
	alone := flag.Bool("viewer", false, "measure viewer.html alone instead of the app around it")
	width := flag.Int("width", 1280, "viewport width in CSS pixels")
	height := flag.Int("height", 800, "viewport height in CSS pixels")
	prof := flag.Int("profile", 0, "sample the page's main thread in each motion and print this many of its busiest functions (the viewer is then built with its function names)")
	trace := flag.Int("trace", 0, "trace each motion and print this many of the events that took each busy thread's time")
	flag.Parse()
	if !browser.Available() {
		log.Fatalf("framebench needs %s", browser.Path)
	}
	wd, _ := os.Getwd()
	root, err := site.ModuleRoot(wd)
	if err != nil {
		log.Fatal(err)
	}
	tmp, err := os.MkdirTemp("", "framebench")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)

	fmt.Println("building the viewer wasm…")
	wasm := filepath.Join(tmp, "memplan.wasm")
	if err := site.BuildWasm(context.Background(), root, wasm); err != nil {
		log.Fatal(err)
	}
	if *prof > 0 {
		// BuildWasm strips the names the profile reports: build the
		// viewer again with them, with BuildWasm's inlining flags.
		cmd := exec.Command("go", "build", "-trimpath", "-gcflags=all=-l", "-gcflags=runtime=", "-gcflags=memplan/viz=", "-o", wasm, "./wasm")
		cmd.Dir, cmd.Env = root, append(os.Environ(), "GOOS=js", "GOARCH=wasm")
		if b, err := cmd.CombinedOutput(); err != nil {
			log.Fatalf("building the viewer with names: %v\n%s", err, b)
		}
		os.Remove(wasm + ".gz")
	}
	fmt.Printf("planning %d synthetic buffers with %s…\n", *n, *strategy)
	planJSON, err := syntheticPlan(*n, *strategy)
	if err != nil {
		log.Fatal(err)
	}

	// Count what the page downloads, as sent (gzipped) on the wire.
	app := &site.Counter{Next: site.Handler(filepath.Join(root, "web"), wasm)}
	mux := http.NewServeMux()
	mux.HandleFunc("/bench-file", func(w http.ResponseWriter, r *http.Request) {
		http.ServeFile(w, r, *extra)
	})
	mux.HandleFunc("/bench-plan.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(planJSON)
	})
	mux.Handle("/", app)
	srv := httptest.NewServer(mux)
	defer srv.Close()

	ctx, cancel := browser.New(context.Background(), filepath.Join(tmp, "profile"))
	defer cancel()
	ctx, cancelT := context.WithTimeout(ctx, 5*time.Minute)
	defer cancelT()
	frame, pageName := `document.getElementById("viewer").contentWindow`, "/index.html"
	if *alone {
		frame, pageName = `window`, "/viewer.html"
	}
	must := func(what string, err error) {
		if err != nil {
			log.Fatalf("%s: %v", what, err)
		}
	}
	poll := func(what, js string) {
		_, err := chromedp.Run(ctx, chromedp.Poll[bool](js, chromedp.WithPollingInterval(50*time.Millisecond)))
		must(what, err)
	}
	must("open the app", chromedp.Do(ctx, chromedp.EmulateViewport(int64(*width), int64(*height)), chromedp.Navigate(srv.URL+pageName)))
	poll("the default example", `(() => { const m = `+frame+`.memplan; return m && m.state().file === "transformer.json" && !m.state().dirty; })()`)
	// Beside the first picture the planner warms up (a worker plans a
	// generated file, the viewer lays it out a step a frame, then
	// collects it): frames measured meanwhile share the machine with it.
	warmStart := time.Now()
	warm, err := chromedp.Run(ctx, chromedp.Poll[string](frame+`.memplan.state().warm`,
		chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(time.Minute)))
	if err != nil {
		warm = "not over after a minute"
	}
	fmt.Printf("warm-up: %s (%.1f s after the first picture)\n", warm, time.Since(warmStart).Seconds())

	sent, total := app.Sent()
	fmt.Println("\ndownloaded by the page (gzip as served):")
	for _, p := range slices.Sorted(maps.Keys(sent)) {
		fmt.Printf("  %-18s %9d B\n", p, sent[p])
	}
	first := total
	for _, p := range site.AfterFirstScreen {
		first -= sent[p]
	}
	fmt.Printf("  %-18s %9d B = %.2f MB (goal <= %.1f MB)\n", "first screen", first, float64(first)/1e6, float64(site.PageBudget)/1e6)
	fmt.Printf("  %-18s %9d B = %.2f MB (goal <= %.1f MB)\n", "total", total, float64(total)/1e6, float64(site.AppBudget)/1e6)

	// measure sends one key per animation frame of the viewer's own
	// window for the given time: the browser then draws as fast as the
	// viewer can redraw. It reports the animation frames the viewer's page
	// got and how many of them the viewer redrew.
	measure := func(name string, goal float64, keys []string) {
		js := fmt.Sprintf(`new Promise((done) => {
			const w = %s, keys = %s, t0 = w.performance.now(), d0 = w.memplan.state().draws;
			let i = 0, frames = 0;
			const step = () => {
				frames++;
				w.memplan.send({type: "key", key: keys[i++ %% keys.length]});
				if (w.performance.now() - t0 < %v) w.requestAnimationFrame(step);
				else done(JSON.stringify({ms: w.performance.now() - t0, frames, draws: w.memplan.state().draws - d0}));
			};
			w.requestAnimationFrame(step);
		})`, frame, mustJSON(keys), *seconds*1000)
		var out string
		run := func() {
			out, err = chromedp.Run(ctx, chromedp.Evaluate[string](js, chromedp.EvalAwaitPromise))
			must(name, err)
		}
		var r struct {
			Ms     float64
			Frames int
			Draws  int
		}
		// Load from other programs inflates CPU time less than it does
		// wall time.
		browserPid := chromedp.FromContext(ctx).Browser.Process().Pid
		cpu0 := procTimes(browserPid, *prof > 0 || *trace > 0)
		if *trace > 0 {
			fmt.Println(name + ":")
			must("trace "+name, traced(ctx, *trace, func() int { run(); json.Unmarshal([]byte(out), &r); return r.Frames }))
		} else if *prof > 0 {
			fmt.Println(name + ":")
			must("profile "+name, profiled(ctx, *prof, func() int { run(); json.Unmarshal([]byte(out), &r); return r.Frames }))
		} else {
			run()
		}
		cpu1 := procTimes(browserPid, *prof > 0 || *trace > 0)
		json.Unmarshal([]byte(out), &r)
		fps := float64(r.Frames) / r.Ms * 1000
		st, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`JSON.stringify(`+frame+`.memplan.state())`))
		var s struct {
			Quads    int     `json:"quads"`
			BuildMs  float64 `json:"build_ms"`
			Uploaded int     `json:"uploaded"`
		}
		json.Unmarshal([]byte(st), &s)
		fmt.Printf("%-40s %5.1f fps, %5.1f ms a frame (%d frames, %d redrawn, in %.1f s; goal >= %.0f fps); last frame: %d quads painted in %.1f ms, %d kB uploaded\n",
			name, fps, r.Ms/float64(max(r.Frames, 1)), r.Frames, r.Draws, r.Ms/1000, goal, s.Quads, s.BuildMs, s.Uploaded/1000)
		cpu := func(k string) float64 { return float64(cpu1[k]-cpu0[k]) * 10 / float64(max(r.Frames, 1)) } // USER_HZ is 100
		fmt.Printf("%-40s CPU a frame: renderer %.1f ms, GPU process %.1f ms, browser %.1f ms\n", "", cpu("renderer"), cpu("gpu-process"), cpu("browser"))
		if *prof > 0 || *trace > 0 {
			// The threads that took more than half a millisecond a frame.
			fmt.Printf("%-40s by thread:", "")
			for _, k := range slices.Sorted(maps.Keys(cpu1)) {
				if strings.Contains(k, "/") && cpu(k) >= 0.5 {
					fmt.Printf(" %s %.1f", k, cpu(k))
				}
			}
			fmt.Println()
		}
	}
	fmt.Println()
	// The small default example first: the cost of a frame that is not
	// about the plan's size (the browser, WebGL on SwiftShader, ebiten).
	raf, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`new Promise((done) => {
		let n = 0; const t0 = performance.now();
		const f = () => { n++; if (performance.now() - t0 < 2000) requestAnimationFrame(f); else done(n / (performance.now() - t0) * 1000); };
		requestAnimationFrame(f); })`, chromedp.EvalAwaitPromise))
	must("idle frame rate", err)
	fmt.Printf("%-38s %5.1f fps (the page's animation frames, nothing redrawn)\n", "idle", raf)
	// Frame cost follows the canvas's pixels on a software rasterizer.
	size, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`(() => { const c = `+frame+`.document.querySelector("canvas"); return c.width + "×" + c.height; })()`))
	fmt.Printf("%-38s %s pixels in a %d×%d window\n", "canvas", size, *width, *height)
	measure("zooming the small default example", 50, []string{"w", "s"})

	if *extra != "" {
		name := filepath.Base(*extra)
		// Count the viewer page's animation frames while it plans, and
		// the longest gap between two: the page is frozen for that long.
		_, err = chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => { const w = `+frame+`; const s = w.__bench = {frames: 0, gap: 0, last: w.performance.now(), on: true};
			const f = (t) => { s.frames++; s.gap = Math.max(s.gap, t - s.last); s.last = t; if (s.on) w.requestAnimationFrame(f); };
			w.requestAnimationFrame(f); return true; })()`))
		must("count frames", err)
		start := time.Now()
		_, err = chromedp.Run(ctx, chromedp.Evaluate[bool](`fetch("/bench-file").then(r => r.arrayBuffer()).then(b => {
			`+frame+`.postMessage({type: "load", name: `+mustJSON(name)+`, data: b}, "*", [b]); return true; })`, chromedp.EvalAwaitPromise))
		must("send "+name, err)
		poll(name, `(() => { const s = `+frame+`.memplan.state(); return s.file === `+mustJSON(name)+` && !s.dirty; })()`)
		took := time.Since(start)
		tensors, _ := chromedp.Run(ctx, chromedp.Evaluate[int](frame+`.memplan.state().tensors`))
		fr, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`(() => { const s = `+frame+`.__bench; s.on = false; return JSON.stringify(s); })()`))
		var f struct {
			Frames int
			Gap    float64
		}
		json.Unmarshal([]byte(fr), &f)
		fmt.Printf("\nplanned and drew %s (%d tensors) in %.1f s; meanwhile the page had %d animation frames (%.1f fps), the longest gap %.0f ms\n",
			name, tensors, took.Seconds(), f.Frames, float64(f.Frames)/took.Seconds(), f.Gap)
	}

	loadStart := time.Now()
	_, err = chromedp.Run(ctx, chromedp.Evaluate[bool](`fetch("/bench-plan.json").then(r => r.arrayBuffer()).then(b => {
		`+frame+`.postMessage({type: "load", name: "bench.json", data: b}, "*", [b]); return true; })`, chromedp.EvalAwaitPromise))
	must("send the plan", err)
	poll("the 100k plan", `(() => { const s = `+frame+`.memplan.state(); return s.file === "bench.json" && !s.dirty && (!window.memplanApp || window.memplanApp.file === "bench.json"); })()`)
	fmt.Printf("\nloaded and drew %d buffers in %.1f s (decode, layout, table)\n", *n, time.Since(loadStart).Seconds())

	fmt.Println()
	// Zoom in on time first so there is room to pan.
	for range 3 {
		chromedp.Run(ctx, chromedp.Evaluate[chromedp.Void](frame+`.memplan.send({type: "key", key: "w", shift: true})`))
	}
	pan := make([]string, 0, 60)
	for i := range 60 {
		pan = append(pan, map[bool]string{true: "ArrowRight", false: "ArrowLeft"}[i < 30])
	}
	measure("panning (time zoomed 2x)", 50, pan)
	chromedp.Run(ctx, chromedp.Evaluate[chromedp.Void](frame+`.memplan.send({type: "fit"})`))
	measure("zooming in and out over the whole plan", 40, []string{"w", "s"})
}

// syntheticPlan places n buffers of mixed sizes and lifetimes, as a large
// model's schedule would have them, and returns the plan JSON.
func syntheticPlan(n int, strategy string) ([]byte, error) {
	rng := rand.New(rand.NewPCG(1, 2))
	t := &ir.BufferTable{Name: "synthetic-" + strconv.Itoa(n)}
	steps := int64(n / 4)
	for i := range n {
		lo := rng.Int64N(steps)
		life := 1 + rng.Int64N(8)
		if rng.IntN(50) == 0 {
			life = 1 + rng.Int64N(steps/4) // a few long-lived buffers
		}
		size := int64(256 << rng.IntN(10))
		t.Rows = append(t.Rows, ir.BufferRow{ID: "b" + strconv.Itoa(i), Lower: lo, Upper: lo + life, Size: size, Line: i + 2})
	}
	p, err := planner.FromTable(t, 64)
	if err != nil {
		return nil, err
	}
	pl, err := planner.Place(context.Background(), p, strategy, planner.PlaceOptions{})
	if err != nil {
		return nil, err
	}
	return json.Marshal(planner.NewPlan(p, strategy, pl))
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
