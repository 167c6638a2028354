package protocol

import (
	"fmt"
	"slices"
	"sort"
)

// The viewer's commands: the messages a host page sends it (docs/
// embedding.md, "Messages to the viewer"). DecodeCommand reads one from
// its tree; the viewer then acts on the Go value, and a message that does
// not read is one error event naming the field, changing nothing.

// Command is a message to the viewer.
type Command interface {
	// Type is the message's type field.
	Type() string
}

// Event is a message a wasm program posts: the viewer's events
// (protocol/events) and the planner worker's.
type Event interface {
	// Type is the event's type field.
	Type() string
}

// HostOptions are a command's planning options: Options as the page's
// form sends them, or Attributes, a <memplan-plan> element's attributes
// as written (read by OptionsFromAttributes). Neither: the command keeps
// the options in force.
type HostOptions struct {
	Options    *Options          `json:"options"`
	Attributes map[string]string `json:"attributes"`
}

// Resolve is the options the command asks for: current when it names
// none; else its own over the defaults (fields the page leaves out take
// their defaults, not the last request's: the form sends everything it
// shows). A page's symbols text is resolved where the file is planned
// (the planner worker, Options.Resolve), so that a file planned with
// symbols that lack values is still the file new options re-plan and
// the page's search looks at, as one whose own symbols lack values is.
func (h HostOptions) Resolve(current Options) (Options, error) {
	switch {
	case h.Attributes != nil:
		return OptionsFromAttributes(h.Attributes)
	case h.Options != nil:
		return *h.Options, nil
	}
	return current, nil
}

// Ping asks the viewer whether it listens; it answers Pong.
type Ping struct{}

// Load plans a file and shows its plan.
type Load struct {
	// Name is the file's name: its extension picks the format.
	Name string `json:"name"`
	Data Blob   `json:"data"`
	HostOptions
}

// LoadExample plans a built-in example.
type LoadExample struct {
	Name string `json:"name"`
	HostOptions
}

// Replan plans again with new options: the file whose plan failed while
// its error is up, else the file on screen.
type Replan struct{ HostOptions }

// Dismiss says the host closed the error: options apply to the plan on
// screen again.
type Dismiss struct{}

// Select selects a tensor ("" clears); Focus selects it and zooms to it.
type Select struct {
	Name string `json:"name"`
}
type Focus struct {
	Name string `json:"name"`
}

// FitView shows the whole plan.
type FitView struct{}

// Record asks for the plan record on screen.
type Record struct{}

// Largest asks for the largest value of Symbol for which the plan on
// screen fits its WebGPU device.
type Largest struct {
	Symbol string `json:"symbol"`
}

// ProfileQuery asks which named WebGPU profile a device's limits provide.
type ProfileQuery struct {
	Limits DeviceLimits `json:"limits"`
}

// DeviceLimits are the three limits of a GPUSupportedLimits the profiles
// differ in.
type DeviceLimits struct {
	MaxStorageBufferBindingSize     int64 `json:"maxStorageBufferBindingSize"`
	MaxBufferSize                   int64 `json:"maxBufferSize"`
	MinStorageBufferOffsetAlignment int64 `json:"minStorageBufferOffsetAlignment"`
}

func (l *DeviceLimits) Validate() error {
	for _, f := range []struct {
		name string
		v    int64
	}{{"maxStorageBufferBindingSize", l.MaxStorageBufferBindingSize}, {"maxBufferSize", l.MaxBufferSize},
		{"minStorageBufferOffsetAlignment", l.MinStorageBufferOffsetAlignment}} {
		if err := atLeast(f.name, f.v, 0); err != nil {
			return err
		}
	}
	return nil
}

// World shows at least Steps × Bytes, fitted: two viewers side by side
// drawn at one scale.
type World struct {
	Steps float64 `json:"steps"`
	Bytes float64 `json:"bytes"`
}

func (w *World) Validate() error {
	if err := positive("steps", w.Steps); err != nil {
		return err
	}
	return positive("bytes", w.Bytes)
}

// Camera shows a world rectangle, steps across and bytes up.
type Camera struct {
	X0 float64 `json:"x0"`
	Y0 float64 `json:"y0"`
	X1 float64 `json:"x1"`
	Y1 float64 `json:"y1"`
}

func (c *Camera) Validate() error {
	if !(c.X1 > c.X0) {
		return &FieldError{Field: "x1", Msg: fmt.Sprintf("want more than x0 (%g), got %g", c.X0, c.X1)}
	}
	if !(c.Y1 > c.Y0) {
		return &FieldError{Field: "y1", Msg: fmt.Sprintf("want more than y0 (%g), got %g", c.Y0, c.Y1)}
	}
	return nil
}

// Theme names the canvas's colours: "dark" or "light".
type Theme struct {
	Name string `json:"name"`
}

func (t *Theme) Validate() error { return oneOf("name", t.Name, "dark", "light") }

// Reveal replays the placement: only the first Count buffers are drawn
// (none, or a negative count: all).
type Reveal struct {
	Count *int `json:"count"`
}

// Cursor moves the time cursor to Step (-1 hides it) or By steps.
type Cursor struct {
	Step *int `json:"step"`
	By   *int `json:"by"`
}

func (c *Cursor) Validate() error {
	if c.Step != nil {
		return atLeast("step", int64(*c.Step), -1)
	}
	return nil
}

// Peak moves the time cursor to the step that sets the lower bound.
type Peak struct{}

// Explain asks why a tensor lives when and sits where it does.
type Explain struct {
	Tensor string `json:"tensor"`
}

// Key is a key press (a DOM KeyboardEvent.key) the host forwards.
type Key struct {
	Key   string `json:"key"`
	Shift bool   `json:"shift"`
}

// Leave says the pointer left the viewer.
type Leave struct{}

// Location is a page address's query and fragment: the link to open.
type Location struct {
	Search string `json:"search"`
	Hash   string `json:"hash"`
}

// Export asks for a file of the plan on screen.
type Export struct {
	What string `json:"what"`
}

// ExportKinds are the files Export makes.
var ExportKinds = []string{"png", "png2x", "svg", "plan", "csv"}

func (e *Export) Validate() error { return oneOf("what", e.What, ExportKinds...) }

// Wheel zooms at a point of the viewer (pixels); Delta > 0 zooms in.
type Wheel struct {
	X     float64 `json:"x"`
	Y     float64 `json:"y"`
	Delta float64 `json:"delta"`
}

// Words asks for numbers as the pages write them (the "words" event):
// a page that states a size states it in Go's words, never its own.
type Words struct {
	Numbers []int64 `json:"numbers"`
}

// MaxWords is the most numbers one Words may ask for.
const MaxWords = 100_000

func (w *Words) Validate() error {
	if len(w.Numbers) > MaxWords {
		return &FieldError{Field: "numbers", Msg: fmt.Sprintf("%d numbers, at most %d", len(w.Numbers), MaxWords)}
	}
	return nil
}

// Place moves tensor Name of the plan on screen to Offset, placing it by
// hand (the viewer starts placing when it was not): the viewer answers
// with a "placed" event. An offset that cannot be the tensor's (negative,
// not a multiple of its alignment) or a name the plan lacks is an error
// naming the field, and changes nothing.
type Place struct {
	Name   string `json:"name"`
	Offset int64  `json:"offset"`
}

func (p *Place) Validate() error {
	if p.Name == "" {
		return &FieldError{Field: "name", Msg: "want a tensor's name, got an empty string"}
	}
	return atLeast("offset", p.Offset, 0)
}

// Placing starts or stops placing the plan on screen by hand, or acts on
// the placement: Action "start" (at the planner's offsets), "stop" (the
// planner's plan again), "reset" (every tensor back at the planner's
// offset), "empty" (every buffer stacked, none sharing a byte), "undo",
// "redo", or "verdict" (say it again). Every one is answered with a
// "placed" event.
type Placing struct {
	Action string `json:"action"`
}

// PlacingActions are Placing's actions.
var PlacingActions = []string{"start", "stop", "reset", "empty", "undo", "redo", "verdict"}

func (p *Placing) Validate() error { return oneOf("action", p.Action, PlacingActions...) }

// Help shows or hides the key list (viewer.js handles it).
type Help struct {
	Open bool `json:"open"`
}

func (Ping) Type() string         { return "ping" }
func (Load) Type() string         { return "load" }
func (LoadExample) Type() string  { return "example" }
func (Replan) Type() string       { return "options" }
func (Dismiss) Type() string      { return "dismiss" }
func (Select) Type() string       { return "select" }
func (Focus) Type() string        { return "focus" }
func (FitView) Type() string      { return "fit" }
func (Record) Type() string       { return "record" }
func (Largest) Type() string      { return "largest" }
func (ProfileQuery) Type() string { return "profile" }
func (World) Type() string        { return "world" }
func (Camera) Type() string       { return "camera" }
func (Theme) Type() string        { return "theme" }
func (Reveal) Type() string       { return "reveal" }
func (Cursor) Type() string       { return "cursor" }
func (Peak) Type() string         { return "peak" }
func (Explain) Type() string      { return "explain" }
func (Key) Type() string          { return "key" }
func (Leave) Type() string        { return "leave" }
func (Location) Type() string     { return "location" }
func (Export) Type() string       { return "export" }
func (Wheel) Type() string        { return "wheel" }
func (Help) Type() string         { return "help" }
func (Words) Type() string        { return "words" }
func (Place) Type() string        { return "place" }
func (Placing) Type() string      { return "placing" }

// commands makes a command of each type: a new command is a type here,
// its Type method and one line of this list. A function, not a table
// built at start, so that the planner worker, which reads no commands,
// links none of them.
func commands() []Command {
	return []Command{&Ping{}, &Load{}, &LoadExample{}, &Replan{}, &Dismiss{}, &Select{}, &Focus{}, &FitView{}, &Record{},
		&Largest{}, &ProfileQuery{}, &World{}, &Camera{}, &Theme{}, &Reveal{}, &Cursor{}, &Peak{}, &Explain{},
		&Key{}, &Leave{}, &Location{}, &Export{}, &Wheel{}, &Help{}, &Words{}, &Place{}, &Placing{}}
}

// NewCommand is a new command of type t, nil for none.
func NewCommand(t string) Command {
	for _, c := range commands() {
		if c.Type() == t {
			return c
		}
	}
	return nil
}

// CommandTypes lists the commands' types, sorted.
func CommandTypes() []string {
	var ts []string
	for _, c := range commands() {
		ts = append(ts, c.Type())
	}
	sort.Strings(ts)
	return ts
}

// DecodeCommand reads a command from its tree (Decode). A tree that is
// not an object with a known type is an error too.
func DecodeCommand(tree any) (Command, error) {
	m, ok := tree.(map[string]any)
	if !ok {
		return nil, &FieldError{Field: "message", Msg: "want an object, got " + describe(tree)}
	}
	t, ok := m["type"].(string)
	if !ok {
		return nil, &FieldError{Field: "type", Msg: "want a string, got " + describe(m["type"])}
	}
	c := NewCommand(t)
	if c == nil {
		return nil, &FieldError{Field: "type", Msg: fmt.Sprintf("unknown message type %q", t)}
	}
	if err := Decode(m, c); err != nil {
		if fe, ok := err.(*FieldError); ok {
			fe.Type = t
		}
		return nil, err
	}
	return c, nil
}

// oneOf checks a string field holds one of the values.
func oneOf(name, v string, values ...string) error {
	if !slices.Contains(values, v) {
		return &FieldError{Field: name, Msg: fmt.Sprintf("want one of %q, got %q", values, v)}
	}
	return nil
}
