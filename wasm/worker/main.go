//go:build js && wasm

// Command worker is memplan's planner for the browser, without the
// canvas: it runs in a Web Worker (web/worker.js), so a long plan never
// stalls the page's frames or input, and a newer request cancels an older
// one. It reads files through planner.Load and answers with verified plan
// records; the messages are protocol.PlanRequest and protocol.WorkerEvent.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"syscall/js"
	"time"

	"memplan/ir"
	_ "memplan/ir/onnx"
	"memplan/planner"
	"memplan/wasm/protocol"
)

type worker struct {
	mu      sync.Mutex
	cancel  context.CancelFunc // the request in flight, if any
	running sync.Mutex         // one plan at a time: a cancelled one ends first
}

func main() {
	// The collector runs less often than Go's default, which a profile
	// showed costing a fifth of planning time in wasm; the memory limit
	// still holds the heap below what the page allows.
	debug.SetGCPercent(400)
	debug.SetMemoryLimit(planner.BrowserMemoryLimit + planner.BrowserMemoryLimit/2)
	w := &worker{}
	api := js.Global().Get("Object").New()
	api.Set("handle", js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) > 0 {
			w.handle(args[0])
		}
		return nil
	}))
	js.Global().Set("memplanWorker", api)
	post(protocol.WorkerEvent{Type: "ready", Version: protocol.Version})
	if ready := js.Global().Get("memplanWorkerReady"); ready.Type() == js.TypeFunction {
		ready.Invoke()
	}
	select {} // serve requests until the worker is terminated
}

// handle takes a request: {type: "plan", id, name, data, options} or
// {type: "cancel"}.
func (w *worker) handle(m js.Value) {
	switch m.Get("type").String() {
	case "cancel":
		w.mu.Lock()
		if w.cancel != nil {
			w.cancel()
		}
		w.mu.Unlock()
	case "plan":
		var req protocol.PlanRequest
		req.ID = m.Get("id").Int()
		req.Name = m.Get("name").String()
		data, err := bytesOf(m.Get("data"))
		if err == nil {
			err = optionsOf(m.Get("options"), &req.Options)
		}
		if err != nil {
			post(protocol.WorkerEvent{Type: "error", ID: req.ID, Error: protocol.ErrorOf(err)})
			return
		}
		ctx, cancel := context.WithCancel(context.Background())
		w.mu.Lock()
		if w.cancel != nil {
			w.cancel() // a newer request supersedes the one in flight
		}
		w.cancel = cancel
		w.mu.Unlock()
		go w.run(ctx, req, data)
	}
}

func (w *worker) run(ctx context.Context, req protocol.PlanRequest, data []byte) {
	w.running.Lock()
	defer w.running.Unlock()
	ev := plan(ctx, req, data)
	ev.ID = req.ID
	post(ev)
}

// plan loads and plans one file. A panic is reported as a bug in memplan
// with the file's name: the worker survives to plan the next file.
func plan(ctx context.Context, req protocol.PlanRequest, data []byte) (ev protocol.WorkerEvent) {
	defer func() {
		if r := recover(); r != nil {
			e := &protocol.Error{Message: fmt.Sprintf("%s: internal error while planning (please report it): %v", req.Name, r), File: req.Name, Kind: "bug"}
			ev = protocol.WorkerEvent{Type: "error", Error: e}
		}
	}()
	if ctx.Err() != nil {
		return cancelled()
	}
	o := req.Options
	in, err := planner.Load(req.Name, data, ir.DecodeOptions{Symbols: o.Symbols, MaxMemory: planner.BrowserMemoryLimit, IfBranch: o.IfBranch})
	if err != nil {
		return protocol.WorkerEvent{Type: "error", Error: protocol.ErrorOf(err)}
	}
	p := in.Plan
	if p == nil {
		progress := func(msg string) { post(protocol.WorkerEvent{Type: "progress", ID: req.ID, Message: msg}) }
		p, err = planner.PlanSource(ctx, in.Source, o.Options, o.Strategy, planner.PlaceOptions{Yield: yielder(), Progress: progress})
		if ctx.Err() != nil {
			return cancelled()
		}
		if err != nil {
			return protocol.WorkerEvent{Type: "error", Error: protocol.ErrorOf(err)}
		}
	}
	record, err := json.Marshal(p)
	if err != nil {
		return protocol.WorkerEvent{Type: "error", Error: protocol.ErrorOf(err)}
	}
	ev = protocol.WorkerEvent{Type: "planned", Format: in.Format, Record: string(record)}
	if in.Source != nil {
		ev.DefaultAlignment = planner.DefaultAlignment(in.Format)
	}
	return ev
}

func cancelled() protocol.WorkerEvent {
	return protocol.WorkerEvent{Type: "error", Error: &protocol.Error{Message: "superseded by a newer request", Kind: "cancelled"}}
}

// yielder lets the worker's event loop take a message (a newer request
// that cancels this one) now and then. Go's wasm has no preemption: only
// a goroutine that blocks, here on a timer, hands JavaScript a turn. No
// frames are drawn here, so a turn every 100 ms costs a few percent.
func yielder() func() {
	const slice = 100 * time.Millisecond
	last := time.Now()
	return func() {
		if time.Since(last) < slice {
			return
		}
		time.Sleep(time.Millisecond)
		last = time.Now()
	}
}

// post sends an event to the worker's owner. Events go through JSON so
// a Go value becomes a JS object in one JSON.parse.
func post(ev protocol.WorkerEvent) {
	b, err := json.Marshal(ev)
	if err != nil {
		b, _ = json.Marshal(protocol.WorkerEvent{Type: "error", ID: ev.ID, Error: protocol.ErrorOf(err)})
	}
	js.Global().Call("postMessage", js.Global().Get("JSON").Call("parse", string(b)))
}

func bytesOf(v js.Value) ([]byte, error) {
	switch {
	case v.InstanceOf(js.Global().Get("ArrayBuffer")):
		v = js.Global().Get("Uint8Array").New(v)
	case v.InstanceOf(js.Global().Get("Uint8Array")):
	default:
		return nil, errors.New("the file's data is not an ArrayBuffer or Uint8Array")
	}
	b := make([]byte, v.Get("byteLength").Int())
	js.CopyBytesToGo(b, v)
	return b, nil
}

func optionsOf(v js.Value, o *protocol.Options) error {
	o.Options = planner.DefaultOptions()
	if v.IsUndefined() || v.IsNull() {
		return nil
	}
	text := js.Global().Get("JSON").Call("stringify", v).String()
	if err := json.Unmarshal([]byte(text), o); err != nil {
		return fmt.Errorf("options: %v", err)
	}
	return nil
}
