//go:build js && wasm

package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"syscall/js"

	"memplan/planner"
	"memplan/viz"
	"memplan/wasm/protocol"
	"memplan/wasm/protocol/events"
)

// post sends an event to the host page and to listeners in this page.
// Events go through JSON so Go values become plain JS objects in one
// JSON.parse instead of thousands of syscall/js calls.
func (a *app) post(ev protocol.Event) {
	a.postWithTensors(ev, js.Undefined())
}

// postWithTensors posts ev with tensors, when a Uint8Array of the plan's
// tensors as UTF-8 JSON text (postTable), under "tensors_json", which the
// receiver decodes and parses. Bytes transferred to the host (viewer.js)
// cost a fraction of one string decoded here and cloned into the host,
// let alone of objects.
func (a *app) postWithTensors(ev protocol.Event, tensors js.Value) {
	b, err := events.Envelope(ev)
	if err != nil {
		// An event that does not encode is memplan's bug (a NaN that got
		// past the commands' checks, say): said once, not every frame.
		b, _ = events.Envelope(events.ErrorEvent{Error: protocol.Error{Message: "memplan bug: an event did not encode: " + err.Error(), Kind: "bug"}})
		tensors = js.Undefined()
	}
	w := js.Global()
	obj := w.Get("JSON").Call("parse", string(b))
	if tensors.InstanceOf(w.Get("Uint8Array")) {
		obj.Set("tensors_json", tensors)
	}
	// viewer.js posts to the host, to its origin once known
	// (docs/embedding.md).
	if toHost := w.Get("memplanToHost"); toHost.Type() == js.TypeFunction {
		toHost.Invoke(obj)
	}
	ce := w.Get("CustomEvent").New("memplan", map[string]any{"detail": obj})
	w.Call("dispatchEvent", ce)
}

// postError reports err with where it happened and which file stays on
// screen (null: none yet).
func (a *app) postError(err error) { a.postErrorOf(err, "") }

// postErrorOf is postError for a file that did not plan (file; "" for
// none): the event says what the page's search can look for in it.
func (a *app) postErrorOf(err error, file string) {
	var e *protocol.Error
	var we *workerError
	var me *messageError
	switch {
	case errors.As(err, &we):
		e = &we.e
	case errors.As(err, &me):
		e = &protocol.Error{Message: err.Error(), Kind: "message"}
	default:
		e = protocol.ErrorOf(err)
	}
	if e.Kind == "cancelled" {
		return // superseded by a newer request, which answers instead
	}
	a.errorsPosted++
	ev := events.ErrorEvent{Error: *e}
	if a.cur != nil {
		ev.Showing = &a.cur.name
	}
	if file != "" {
		ev.FitChoices = protocol.ErrorFitChoices(file, e)
	}
	a.post(ev)
}

// summary is the plan on screen in numbers and, for the page's panel, in
// words.
func summary(l *viz.Layout) events.PlanSummary {
	p := l.Plan
	s := events.PlanSummary{
		Name: p.Name, Strategy: p.Strategy, Optimal: p.Optimal, Proven: p.Optimal || p.OptimalBySearch,
		ArenaSize: p.ArenaSize, LowerBound: p.LowerBound, TotalUnshared: p.TotalUnshared,
		Saved: p.Saved, Fragmentation: p.Fragmentation, Steps: p.Steps, Tensors: len(p.Tensors),
		Alignment: p.Alignment, Options: p.Options, Notes: p.Notes, Symbols: p.Symbols,
		Budget: l.Budget, OverBudget: l.OverBudget,
		Binding: p.Binding, Limits: p.Limits, Buffers: p.Buffers,
	}
	for _, b := range l.Phases { // the layout's bands: PhaseRuns, already computed
		s.Phases = append(s.Phases, events.PhaseSummary{Phase: b.Name, First: int(b.X0), Last: int(b.X1) - 1, Peak: b.Peak})
	}
	// Every buffer's name: written as encoding/json would, without it.
	s.Order = planner.AppendStringsJSON(nil, p.PlacementOrder)
	return s
}

// summaryRows are the summary as the page lists it.
func summaryRows(s *events.PlanSummary) [][2]string {
	strategy := s.Strategy
	if s.Proven {
		strategy += " — proven smallest"
	}
	align := strconv.FormatInt(s.Alignment, 10) + " B"
	if s.AlignmentChosen == 0 {
		align += " (default)"
	}
	saved := planner.FormatBytes(s.Saved)
	if s.TotalUnshared > 0 {
		saved += fmt.Sprintf(" (%.1f %%)", 100*float64(s.Saved)/float64(s.TotalUnshared))
	}
	name := s.Name
	if name == "" {
		name = "—"
	}
	rows := [][2]string{
		{"graph", name},
		{"arena", planner.ExactBytes(s.ArenaSize)},
		{"lower bound", planner.ExactBytes(s.LowerBound)},
		{"fragmentation", fmt.Sprintf("%.2f %% over the bound", s.Fragmentation*100-100)},
		{"no sharing", planner.FormatBytes(s.TotalUnshared)},
		{"saved", saved},
		{"strategy", strategy},
		{"tensors", strconv.Itoa(s.Tensors)},
		{"steps", strconv.Itoa(s.Steps)},
		{"alignment", align},
	}
	if len(s.Symbols) > 0 {
		rows = append(rows, [2]string{"symbols", protocol.SymbolsText(s.Symbols)})
	}
	for _, r := range s.Phases {
		rows = append(rows, [2]string{"phase " + r.Phase, fmt.Sprintf("steps %d – %d, peak %s", r.First, r.Last, planner.FormatBytes(r.Peak))})
	}
	return rows
}

func (a *app) hovered(h viz.Hit, sx, sy float64) {
	ev := events.Hover{X: sx, Y: sy}
	if h.Tensor >= 0 {
		info := a.tensorInfo(int(h.Tensor))
		ev.Tensor, ev.Part = &info, h.Kind.String()
	}
	a.post(ev)
}

func (a *app) postSelect(i int) {
	ev := events.Selected{Partners: []events.TensorInfo{}, Cursor: a.view.Cursor} // [] rather than null when nothing shared its bytes
	if l := a.view.Layout; l != nil && i >= 0 {
		info := a.tensorInfo(i)
		ev.Tensor = &info
		for _, j := range a.view.Partners {
			ev.Partners = append(ev.Partners, a.tensorInfo(j))
		}
	}
	a.post(ev)
}

// tensorInfo is a tensor as events carry it, with its index and its
// screen rectangle in the viewer, and its details in words.
func (a *app) tensorInfo(i int) events.TensorInfo {
	t := &a.view.Layout.Plan.Tensors[i]
	// Color: its fill in the current theme, for a host's swatch.
	info := events.TensorInfo{Index: i, Tensor: t, Color: a.view.TensorColor(i).Hex(), Rows: tensorRows(t), Line: tensorLine(t)}
	if r, ok := a.view.ScreenRect(i); ok {
		info.Rect = &events.Rect{X: r.X0, Y: r.Y0, W: r.X1 - r.X0, H: r.Y1 - r.Y0}
	}
	return info
}

// tensorRows are a tensor's details as the pages list them.
func tensorRows(t *planner.PlanTensor) [][2]string {
	shape := make([]string, len(t.Shape))
	for k, d := range t.Shape {
		shape[k] = strconv.FormatInt(d, 10)
	}
	where := "not in the arena"
	if t.Offset >= 0 {
		where = planner.GroupDigits(t.Offset) + " – " + planner.GroupDigits(t.Offset+t.Size)
	}
	rows := [][2]string{{"op", t.Op}, {"kind", string(t.Kind)}, {"shape", "[" + strings.Join(shape, ", ") + "]"}, {"dtype", t.DType},
		{"size", planner.ExactBytes(t.Size)}, {"offset", where}, {"live", fmt.Sprintf("steps %d – %d", t.Birth, t.Death)}}
	if t.Guard > 0 {
		rows = append(rows, [2]string{"guard", planner.FormatBytes(t.Guard)})
	}
	if t.Reuses != "" {
		rows = append(rows, [2]string{"reuses", t.Reuses})
	}
	if t.BufferSlot != nil {
		// Counted from 1, as the plot's cut lines count them.
		rows = append(rows, [2]string{"gpu buffer", strconv.Itoa(t.Buffer+1) + ", at " + planner.GroupDigits(t.BufferOffset)})
	}
	if t.Root != "" {
		rows = append(rows, [2]string{"view of", t.Root + " at +" + planner.GroupDigits(t.ViewOffset) + " B"})
	}
	if t.Node != "" && t.Node != t.Name {
		rows = append(rows, [2]string{"node", t.Node})
	}
	if t.Phase != "" {
		rows = append(rows, [2]string{"phase", t.Phase})
	}
	return rows
}

// tensorLine is a tensor in one line, as a list of them shows it.
func tensorLine(t *planner.PlanTensor) string {
	where := "not in the arena"
	if t.Offset >= 0 {
		where = "at " + planner.GroupDigits(t.Offset)
	}
	return fmt.Sprintf("%s — %s, steps %d–%d, %s %s", t.Name, t.Kind, t.Birth, t.Death, planner.FormatBytes(t.Size), where)
}

// postCursor tells the host what the time cursor's step holds.
func (a *app) postCursor() {
	l := a.view.Layout
	if l == nil {
		return
	}
	c := l.CursorAt(a.view.Cursor)
	a.post(events.CursorMoved{CursorInfo: c, Rows: [][2]string{
		{"live", planner.ExactBytes(c.LiveBytes)}, {"lower bound", planner.ExactBytes(c.LowerBound)}, {"arena", planner.ExactBytes(c.Arena)}}})
}

// watchCamera runs every frame: when the camera shows another world
// rectangle than the host last heard of (the user dragged, zoomed or
// pressed a key), it posts a "camera" event with it.
func (a *app) watchCamera() {
	if a.view.Layout == nil {
		return
	}
	v := a.view.Cam.Visible()
	if v == a.camSeen {
		return
	}
	a.camSeen = v
	a.post(events.CameraMoved{X0: v.X0, Y0: v.Y0, X1: v.X1, Y1: v.Y1})
}
