//go:build js && wasm

package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"syscall/js"

	"memplan/examples"
	"memplan/ir"
	"memplan/planner"
	"memplan/viz"
	"memplan/wasm/jsconv"
	"memplan/wasm/protocol"
	"memplan/wasm/protocol/events"
)

// installJS registers window.memplan and the message listener.
func (a *app) installJS() {
	w := js.Global()
	api := js.Global().Get("Object").New()
	// send(msg) is a command from this page itself (viewer.js, a test):
	// it has the viewer's own rights, unless {origin} names the page at
	// another site it comes from (the embedding page's choice of this
	// page's address).
	api.Set("send", js.FuncOf(func(_ js.Value, args []js.Value) any {
		from := sender{}
		if len(args) > 1 && args[1].Type() == js.TypeObject {
			if o := args[1].Get("origin"); o.Type() == js.TypeString && o.String() != "" {
				from.foreign = o.String()
			}
		}
		if len(args) > 0 {
			a.handle(args[0], from)
		}
		return nil
	}))
	// rectOf(name) is where a tensor is drawn now, in CSS pixels of this
	// page, with its fill colour and its offset in the arena (a placement
	// by hand's, while placing); null when it is not drawn.
	api.Set("rectOf", js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) == 0 || args[0].Type() != js.TypeString || a.view.Layout == nil {
			return nil
		}
		i := a.view.Layout.Index(args[0].String())
		r, ok := a.view.ScreenRect(i)
		if !ok {
			return nil
		}
		return map[string]any{"x": r.X0, "y": r.Y0, "w": r.X1 - r.X0, "h": r.Y1 - r.Y0,
			"color": a.view.TensorColor(i).Hex(), "offset": float64(a.view.Layout.Plan.Tensors[i].Offset)}
	}))
	// state() reports what the viewer shows, for tests and hosts.
	api.Set("state", js.FuncOf(func(js.Value, []js.Value) any { return jsconv.Encode(a.stateReport()) }))
	w.Set("memplan", api)
	own := w.Get("location").Get("origin").String()
	w.Call("addEventListener", "message", js.FuncOf(func(_ js.Value, args []js.Value) any {
		e := args[0]
		// Only the host page (or this page) may drive the viewer;
		// viewer.js has already dropped messages from a parent at another
		// origin than the one it knows.
		src := e.Get("source")
		if !src.Equal(w.Get("parent")) && !src.Equal(w) {
			return nil
		}
		from := sender{}
		if o := e.Get("origin").String(); o != own || own == "null" {
			from.foreign = o
		}
		a.handle(e.Get("data"), from)
		return nil
	}))
}

// sender is who sent a command: this page or a same-origin parent (the
// zero value), or a page at another origin, which may not have the
// viewer fetch what only the viewer's origin can read.
type sender struct {
	foreign string // the sender's origin when it is not the viewer's
}

// stateReport is window.memplan.state(): what the viewer shows. A struct
// encoded once (jsconv.Encode) rather than maps of values, which cost
// the viewer's wasm a boxing call a key; the plan's fields are absent
// while there is none.
type stateReport struct {
	File     *string            `json:"file"`
	Selected *string            `json:"selected"`
	Hover    *string            `json:"hover"`
	Dirty    bool               `json:"dirty"`
	Draws    int                `json:"draws"`
	Updates  int                `json:"updates"`
	Quads    int                `json:"quads"`
	BuildMs  float64            `json:"build_ms"`
	Uploaded int                `json:"uploaded"`
	Millis   map[string]float64 `json:"millis"`
	Warm     string             `json:"warm"`
	Errors   int                `json:"errors"`
	*planState
}

// planState is what the viewer reports of the plan on screen.
type planState struct {
	ArenaSize  float64 `json:"arena_size"`
	Tensors    int     `json:"tensors"`
	Reveal     int     `json:"reveal"`
	Cursor     int     `json:"cursor"`
	LowerColor string  `json:"lower_color"` // the explained conflicts' outline
	Strip      box     `json:"strip"`       // the live strip, where a drag moves the cursor, in CSS pixels
	Visible    box     `json:"visible"`     // the world rectangle shown, steps × bytes
}

// box is a rectangle as state() writes it.
type box struct {
	X0 float64 `json:"x0"`
	Y0 float64 `json:"y0"`
	X1 float64 `json:"x1"`
	Y1 float64 `json:"y1"`
}

func (a *app) stateReport() stateReport {
	s := stateReport{Dirty: a.view.Dirty, Draws: a.game.Draws, Updates: a.updates, Quads: a.game.R.LastQuads,
		BuildMs: a.game.R.LastBuild.Seconds() * 1000, Uploaded: a.game.R.Stats.Uploaded, Millis: map[string]float64{},
		Warm: a.warm, Errors: a.errorsPosted}
	if a.cur != nil {
		s.File = &a.cur.name
	}
	for k, v := range a.millis {
		s.Millis[k] = v
	}
	if l := a.view.Layout; l != nil {
		r, k := a.view.StripRect(), a.view.Scale
		s.planState = &planState{ArenaSize: float64(l.Plan.ArenaSize), Tensors: len(l.Plan.Tensors), Reveal: a.view.Reveal,
			Cursor: a.view.Cursor, LowerColor: a.view.Theme.Lower.Hex(), Strip: box{r.X0 / k, r.Y0 / k, r.X1 / k, r.Y1 / k}}
		v := a.view.Cam.Visible()
		s.Visible = box{v.X0, v.Y0, v.X1, v.Y1}
		if a.view.Selected >= 0 {
			s.Selected = &l.Plan.Tensors[a.view.Selected].Name
		}
		if a.view.Hover.Tensor >= 0 {
			s.Hover = &l.Plan.Tensors[a.view.Hover.Tensor].Name
		}
	}
	return s
}

// handle reads one command and acts on it. It runs inside a JS callback,
// so it only reads the message and queues the work. A message that does
// not read (docs/embedding.md's table, protocol.Commands) is one error
// event naming the field, and changes nothing.
func (a *app) handle(m js.Value, from sender) {
	cmd, err := jsconv.DecodeCommand(m)
	if err != nil {
		a.postError(&messageError{err})
		return
	}
	switch c := cmd.(type) {
	case *protocol.Ping:
		// A host checking that the viewer listens (it may send before
		// ready); viewer.js has learnt its origin from this message.
		a.post(events.Pong{Version: protocol.Version})
	case *protocol.Load:
		name := path.Base(c.Name)
		if c.Data == nil {
			a.postError(&ir.Error{File: name, Msg: "the load message has no data"})
			return
		}
		if err := planner.CheckInput(name, c.Data.Size(), planner.BrowserMemoryLimit); err != nil {
			a.postError(err) // before its bytes are read anywhere
			return
		}
		opts, err := c.Resolve(a.options())
		if err != nil {
			a.postError(err)
			return
		}
		a.request(&file{name: name, data: jsconv.Uint8Array(c.Data)}, opts, false, nil)
	case *protocol.LoadExample:
		name := path.Base(c.Name)
		b, err := examples.FS.ReadFile(name)
		if err != nil {
			a.postError(fmt.Errorf("no built-in example %s", ir.Quote(name)))
			return
		}
		opts, err := c.Resolve(a.options())
		if err != nil {
			a.postError(err)
			return
		}
		a.request(&file{name: name, data: uint8Array(b), example: name}, opts, false, nil)
	case *protocol.Replan:
		opts, err := c.Resolve(a.options())
		if err != nil {
			a.postError(err)
			return
		}
		a.queue(func() {
			a.mu.Lock()
			f := a.target
			a.mu.Unlock()
			if f != nil {
				a.request(f, opts, f == a.cur, nil)
			}
		})
	case *protocol.Dismiss:
		// The page closed the error: options go back to the file on screen.
		a.queue(func() {
			a.mu.Lock()
			a.target, a.targetOpts = a.cur, a.opts
			a.mu.Unlock()
		})
	case *protocol.Select:
		a.queue(func() { a.selectTensor(c.Name, false) })
	case *protocol.Focus:
		a.queue(func() { a.selectTensor(c.Name, true) })
	case *protocol.Reveal:
		// Replay the placement up to the count-th buffer; no count (or
		// a negative one) shows the whole plan.
		n := -1
		if c.Count != nil {
			n = *c.Count
		}
		a.queue(func() {
			a.view.SetReveal(n)
			// The buffer it just placed is in view, however far the
			// camera was: a replay shows where each one goes.
			if l := a.view.Layout; l != nil && n > 0 && n <= len(l.Plan.PlacementOrder) {
				a.view.KeepInView(l.Index(l.Plan.PlacementOrder[n-1]))
			}
		})
	case *protocol.Theme:
		a.queue(func() { a.view.SetTheme(c.Name) })
	case *protocol.Record:
		// The plan record on screen, whole, for a host that runs or keeps
		// it (memplan's app runs it on the GPU: web/gpurun.js).
		a.queue(func() {
			var ev events.RecordEvent
			if l := a.view.Layout; l != nil && a.cur != nil {
				ev.File, ev.Record = &a.cur.name, l.Plan
			}
			a.post(ev)
		})
	case *protocol.FitView:
		a.queue(func() { a.view.Cam.Fit(); a.view.Dirty = true })
	case *protocol.Largest:
		// The largest value of a symbol for which the file new options
		// re-plan (the plan on screen, or a file that failed for want of
		// symbol values, which the search gives: protocol.ErrorFitChoices)
		// fits its options' WebGPU device: a planner worker searches, and
		// viewer.js hands its answer to the host as a "largest" event.
		a.queue(func() {
			a.mu.Lock()
			f, opts := a.target, a.targetOpts
			a.mu.Unlock()
			if f == nil {
				a.postError(errors.New("the largest size that fits needs a file"))
				return
			}
			req := jsconv.Encode(protocol.PlanRequest{Name: f.name, Options: opts, Symbol: c.Symbol})
			go func() {
				res := await(planners().Call("fit", req, f.data))
				var ev fitAnswer
				err := jsconv.Decode(res, &ev)
				// The answer goes on as the worker wrote it.
				if l := res.Get("largest"); l.Type() == js.TypeObject {
					ev.Largest = json.RawMessage(js.Global().Get("JSON").Call("stringify", l).String())
				}
				a.queue(func() { a.postLargest(f.name, c.Symbol, ev, err) })
			}()
		})
	case *protocol.ProfileQuery:
		// The WebGPU profile a device's limits provide: the largest named
		// one (planner.ProfileOf), "" when it falls short of every profile.
		l := planner.Limits{MaxStorageBufferBindingSize: c.Limits.MaxStorageBufferBindingSize, MaxBufferSize: c.Limits.MaxBufferSize,
			MinStorageBufferOffsetAlignment: c.Limits.MinStorageBufferOffsetAlignment}
		ev := events.ProfileEvent{Rows: [][2]string{{"binding limit", planner.ExactBytes(l.MaxStorageBufferBindingSize)},
			{"buffer limit", planner.ExactBytes(l.MaxBufferSize)}, {"offset alignment", planner.GroupDigits(l.MinStorageBufferOffsetAlignment) + " B"}}}
		if p, ok := planner.ProfileOf(l); ok {
			ev.Profile, ev.Doc = p.Profile, p.Doc
		}
		a.post(ev)
	case *protocol.World:
		// A host showing two plans at one scale sends each viewer the
		// larger steps and bytes of the two.
		a.queue(func() { a.view.ShareWorld(c.Steps, c.Bytes); a.camSeen = a.view.Cam.Visible() })
	case *protocol.Camera:
		// A host showing the camera of another viewer (compare.html's
		// two plans move as one). Not echoed as a camera event, so two
		// viewers forwarding to each other do not loop.
		a.queue(func() {
			if a.view.Layout == nil {
				return
			}
			a.view.Cam.Show(viz.Rect{X0: c.X0, Y0: c.Y0, X1: c.X1, Y1: c.Y1})
			a.view.Dirty = true
			a.camSeen = a.view.Cam.Visible()
		})
	case *protocol.Key:
		a.queue(func() {
			before, cursor, rev := a.view.Selected, a.view.Cursor, 0
			if a.hand != nil {
				rev = a.hand.Rev
			}
			a.view.Key(c.Key, c.Shift)
			if a.view.Selected != before {
				a.postSelect(a.view.Selected)
			}
			if a.view.Cursor != cursor {
				a.postCursor()
			}
			switch {
			case a.hand != nil && a.hand.Rev != rev:
				// A move, undo or redo by key: a held key repeats it.
				a.postKeyPlaced()
			case a.hand != nil && a.view.Selected != before:
				a.postPlaced()
			}
		})
	case *protocol.Place:
		a.queue(func() { a.place(c) })
	case *protocol.Placing:
		a.queue(func() { a.placing(c.Action) })
	case *protocol.Cursor:
		a.queue(func() {
			switch {
			case a.view.Layout == nil:
				return
			case c.By != nil && *c.By != 0:
				a.view.MoveCursor(*c.By)
			case c.Step != nil:
				a.view.SetCursor(*c.Step)
			default:
				a.view.SetCursor(-1)
			}
			a.postCursor()
		})
	case *protocol.Peak:
		a.queue(func() {
			if a.view.Layout != nil {
				a.view.SetCursor(a.view.Layout.PeakStep())
				a.postCursor()
			}
		})
	case *protocol.Explain:
		a.queue(func() { a.requestExplain(c.Tensor) })
	case *protocol.Words:
		ev := events.WordsWritten{Grouped: make([]string, len(c.Numbers)), Bytes: make([]string, len(c.Numbers))}
		for i, n := range c.Numbers {
			ev.Grouped[i], ev.Bytes[i] = planner.GroupDigits(n), planner.CountBytes(n)
		}
		a.queue(func() { a.post(ev) }) // after the events already queued
	case *protocol.Leave:
		// The pointer left the viewer: nothing is hovered any more.
		a.queue(a.game.PointerLeft)
	case *protocol.Location:
		// The page's address, on load and on back/forward: the link's
		// state, for Go to read. A page at another origin may give one,
		// but the viewer fetches a file it names only as that page could.
		a.queue(func() { a.openLocation(c.Search, c.Hash, from) })
	case *protocol.Export:
		a.queue(func() { a.export(c.What) })
	case *protocol.Wheel:
		// A host forwarding wheel events it caught over the viewer.
		a.queue(func() { a.view.Wheel(c.X, c.Y, c.Delta, false, false) })
	case *protocol.Help:
		// viewer.js shows the key list.
	}
}

// selectTensor selects tensor name ("" or unknown: none) and, with focus,
// zooms to it.
func (a *app) selectTensor(name string, focus bool) {
	l := a.view.Layout
	if l == nil {
		return
	}
	i := l.Index(name)
	a.view.Select(i)
	if focus {
		a.view.FocusTensor(i)
	}
	a.postSelect(a.view.Selected)
	if a.hand != nil {
		a.postPlaced() // what Tab walks from now
	}
}

// options is the options in force.
func (a *app) options() protocol.Options {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.opts
}

// messageError is a command that did not read: the host's mistake, not
// the file's.
type messageError struct{ err error }

func (e *messageError) Error() string { return e.err.Error() }
func (e *messageError) Unwrap() error { return e.err }

// fitAnswer is what the viewer reads of a worker's "fitted" event; the
// answer itself, a planner.SymbolFit, it passes on as it is.
type fitAnswer struct {
	Type    string          `json:"type"`
	Error   *protocol.Error `json:"error"`
	Largest json.RawMessage `json:"-"`
}

// postLargest tells the host the answer to a Largest command (a newer one
// superseded this one: no answer).
func (a *app) postLargest(file, symbol string, ev fitAnswer, err error) {
	out := events.LargestEvent{File: file, Symbol: symbol}
	switch {
	case err != nil:
		out.Error = &protocol.Error{Message: "the planner's answer is unreadable (please report it): " + err.Error(), Kind: "bug"}
	case ev.Type == "fitted" && ev.Largest != nil:
		out.Largest = ev.Largest
	case ev.Error != nil && ev.Error.Kind == "cancelled":
		return
	case ev.Error != nil:
		out.Error = ev.Error
	default:
		out.Error = &protocol.Error{Message: "the planner gave no answer", Kind: "stopped"}
	}
	a.post(out)
}
