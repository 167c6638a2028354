//go:build !js

package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/chromedp/cdproto/cdp"
	cdpio "github.com/chromedp/cdproto/io"
	"github.com/chromedp/cdproto/profiler"
	"github.com/chromedp/cdproto/tracing"
	"github.com/chromedp/chromedp"

	"memplan/tools/site/browser"
)

// Where a frame's time goes. -profile samples the page's main thread (the
// viewer runs there, in a same-origin iframe) with the DevTools profiler;
// -trace records Chromium's trace events of every process, the GPU
// process's included, which the profiler does not see; and every run
// reads each process's CPU time from /proc.

// procTimes is the CPU time, in clock ticks, of the browser process and
// its descendants, by process type ("browser", "renderer", "gpu-process"…)
// and, if threads, by process type and thread name too ("gpu-process/CrGpuMain").
func procTimes(root int, threads bool) map[string]int64 {
	ticksOf := func(f []string) int64 {
		if len(f) < 13 {
			return 0
		}
		ut, _ := strconv.ParseInt(f[11], 10, 64)
		st, _ := strconv.ParseInt(f[12], 10, 64)
		return ut + st
	}
	out := map[string]int64{}
	for _, pid := range browser.ProcessTree(root) {
		dir := filepath.Join("/proc", strconv.Itoa(pid))
		_, f, ok := browser.ProcStat(filepath.Join(dir, "stat"))
		if !ok {
			continue
		}
		typ := "browser"
		if cl, err := os.ReadFile(filepath.Join(dir, "cmdline")); err == nil {
			// Chromium rewrites its children's argv into one line.
			for _, a := range strings.FieldsFunc(string(cl), func(r rune) bool { return r == 0 || r == ' ' }) {
				if v, ok := strings.CutPrefix(a, "--type="); ok {
					typ = v
				}
			}
		}
		out[typ] += ticksOf(f)
		if threads {
			// And each thread, by name, with its process's type.
			tasks, _ := os.ReadDir(filepath.Join(dir, "task"))
			for _, task := range tasks {
				if comm, f, ok := browser.ProcStat(filepath.Join(dir, "task", task.Name(), "stat")); ok {
					out[typ+"/"+comm] += ticksOf(f)
				}
			}
		}
	}
	return out
}

// profiled runs f between starting and stopping the page's CPU profiler and
// prints where the time of each frame went; f
// reports how many frames it measured.
func profiled(ctx context.Context, top int, f func() int) error {
	if _, err := chromedp.Call(ctx, profiler.Enable, cdp.Empty{}); err != nil {
		return err
	}
	if _, err := chromedp.Call(ctx, profiler.SetSamplingInterval, profiler.SetSamplingIntervalParams{Interval: 200}); err != nil {
		return err
	}
	if _, err := chromedp.Call(ctx, profiler.Start, cdp.Empty{}); err != nil {
		return err
	}
	frames := f()
	res, err := chromedp.Call(ctx, profiler.Stop, cdp.Empty{})
	if err != nil {
		return err
	}
	frames = max(frames, 1)
	printProfile(res.Profile, top, frames)
	return nil
}

// printProfile prints the functions of the main thread with the most self
// and the most total time, per frame.
func printProfile(p *profiler.Profile, top, frames int) {
	if p == nil {
		return
	}
	byID := map[int64]*profiler.ProfileNode{}
	parent := map[int64]int64{}
	for _, n := range p.Nodes {
		byID[n.ID] = n
		for _, c := range n.Children {
			parent[c] = n.ID
		}
	}
	name := func(n *profiler.ProfileNode) string {
		cf := n.CallFrame
		s := cf.FunctionName
		if s == "" {
			s = "(anonymous)"
		}
		if u := cf.URL; u != "" {
			s += " " + filepath.Base(u)
		}
		return s
	}
	self, total := map[string]float64{}, map[string]float64{}
	var all float64
	for i, id := range p.Samples {
		if i+1 >= len(p.TimeDeltas) {
			break
		}
		// A sample's time is the gap to the next one.
		dt := float64(p.TimeDeltas[i+1]) / 1000
		n := byID[id]
		if n == nil {
			continue
		}
		all += dt
		self[name(n)] += dt
		seen := map[string]bool{}
		for id := n.ID; ; {
			s := name(byID[id])
			if !seen[s] {
				seen[s] = true
				total[s] += dt
			}
			pid, ok := parent[id]
			if !ok {
				break
			}
			id = pid
		}
	}
	list := func(what string, m map[string]float64) {
		type kv struct {
			k string
			v float64
		}
		var kvs []kv
		for k, v := range m {
			kvs = append(kvs, kv{k, v})
		}
		slices.SortFunc(kvs, func(a, b kv) int { return cmp.Compare(b.v, a.v) })
		fmt.Printf("    main thread, %s (ms a frame of %.1f sampled):\n", what, all/float64(frames))
		for _, e := range kvs[:min(top, len(kvs))] {
			fmt.Printf("      %6.2f  %s\n", e.v/float64(frames), e.k)
		}
	}
	list("self", self)
	list("total", total)
}

// traced runs f inside a Chromium trace and prints, for each thread busy
// for more than a millisecond a frame, the events that took its time (self
// time, nested events subtracted), per frame.
func traced(ctx context.Context, top int, f func() int) error {
	done := make(chan tracing.EventTracingComplete, 1)
	lctx, stop := context.WithCancel(ctx)
	defer stop()
	if err := chromedp.ListenBrowser(lctx, func(ev any) {
		if e, ok := ev.(*tracing.EventTracingComplete); ok {
			done <- *e
		}
	}); err != nil {
		return err
	}
	cats := []string{"toplevel", "devtools.timeline", "disabled-by-default-devtools.timeline", "gpu", "cc", "viz", "blink", "v8", "benchmark", "renderer.scheduler", "disabled-by-default-gpu.decoder", "disabled-by-default-gpu.service", "gpu.angle", "disabled-by-default-gpu.angle", "disabled-by-default-gpu.device", "gpu.service", "gpu.decoder"}
	if _, err := chromedp.CallBrowser(ctx, tracing.Start, tracing.StartParams{TransferMode: tracing.StartTransferModeReturnAsStream,
		TraceConfig: &tracing.TraceConfig{IncludedCategories: cats, ExcludedCategories: []string{"*"}}}); err != nil {
		return err
	}
	frames := max(f(), 1)
	if _, err := chromedp.CallBrowser(ctx, tracing.End, cdp.Empty{}); err != nil {
		return err
	}
	var ev tracing.EventTracingComplete
	select {
	case ev = <-done:
	case <-ctx.Done():
		return ctx.Err()
	}
	var buf bytes.Buffer
	for {
		r, err := chromedp.CallBrowser(ctx, cdpio.Read, cdpio.ReadParams{Handle: ev.Stream})
		if err != nil {
			return err
		}
		if r.Base64encoded {
			b, _ := base64.StdEncoding.DecodeString(string(r.Data))
			buf.Write(b)
		} else {
			buf.Write(r.Data)
		}
		if r.EOF {
			break
		}
	}
	chromedp.CallBrowser(ctx, cdpio.Close, cdpio.CloseParams{Handle: ev.Stream})
	var trace struct {
		TraceEvents []struct {
			Name string          `json:"name"`
			Ph   string          `json:"ph"`
			Pid  int             `json:"pid"`
			Tid  int             `json:"tid"`
			Ts   float64         `json:"ts"`
			Dur  float64         `json:"dur"`
			Args json.RawMessage `json:"args"`
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(buf.Bytes(), &trace); err != nil {
		return err
	}
	type thread struct{ pid, tid int }
	names := map[thread]string{}
	procs := map[int]string{}
	type span struct {
		name     string
		ts, end  float64
		children float64
	}
	spans := map[thread][]span{}
	for _, e := range trace.TraceEvents {
		t := thread{e.Pid, e.Tid}
		switch e.Ph {
		case "M":
			var a struct{ Name string }
			json.Unmarshal(e.Args, &a)
			if e.Name == "thread_name" {
				names[t] = a.Name
			} else if e.Name == "process_name" {
				procs[e.Pid] = a.Name
			}
		case "X":
			spans[t] = append(spans[t], span{name: e.Name, ts: e.Ts, end: e.Ts + e.Dur})
		}
	}
	type kv struct {
		k string
		v float64
	}
	var threads []kv
	selfs := map[string]map[string]float64{}
	for t, ss := range spans {
		slices.SortFunc(ss, func(a, b span) int {
			if c := cmp.Compare(a.ts, b.ts); c != 0 {
				return c
			}
			return cmp.Compare(b.end, a.end)
		})
		self := map[string]float64{}
		var stack []int
		busy := 0.0
		for i := range ss {
			for len(stack) > 0 && ss[stack[len(stack)-1]].end <= ss[i].ts {
				stack = stack[:len(stack)-1]
			}
			d := ss[i].end - ss[i].ts
			if len(stack) > 0 {
				ss[stack[len(stack)-1]].children += d
			} else {
				busy += d
			}
			stack = append(stack, i)
		}
		for _, s := range ss {
			self[s.name] += s.end - s.ts - s.children
		}
		key := fmt.Sprintf("%s/%s", procs[t.pid], names[t])
		if key == "/" {
			key = fmt.Sprintf("%d/%d", t.pid, t.tid)
		}
		key = fmt.Sprintf("%s (%d)", key, t.tid)
		threads = append(threads, kv{key, busy / 1000 / float64(frames)})
		selfs[key] = self
	}
	slices.SortFunc(threads, func(a, b kv) int { return cmp.Compare(b.v, a.v) })
	for _, th := range threads {
		if th.v < 1 {
			break
		}
		fmt.Printf("    %s: %.1f ms a frame in traced events\n", th.k, th.v)
		var kvs []kv
		for k, v := range selfs[th.k] {
			kvs = append(kvs, kv{k, v / 1000 / float64(frames)})
		}
		slices.SortFunc(kvs, func(a, b kv) int { return cmp.Compare(b.v, a.v) })
		for _, e := range kvs[:min(top, len(kvs))] {
			if e.v >= 0.05 {
				fmt.Printf("      %6.2f  %s\n", e.v, e.k)
			}
		}
	}
	return nil
}
