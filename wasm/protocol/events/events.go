// Package events holds the viewer's events: what it posts to its host
// page (docs/embedding.md, "Events from the viewer"), each a Go type.
// They are apart from package protocol because some carry the canvas's
// own types (viz), which the planner worker does not link.
package events

import (
	"encoding/json"

	"memplan/ir"
	"memplan/planner"
	"memplan/viz"
	"memplan/wasm/protocol"
)

// Envelope is an event as it is posted, in JSON: its source and type,
// then its own fields.
func Envelope(ev protocol.Event) ([]byte, error) {
	body, err := ir.EncodeJSON(ev, "")
	if err != nil {
		return nil, err
	}
	head := `{"source":"memplan","type":"` + ev.Type() + `"`
	if len(body) > 2 {
		head += ","
	}
	return append([]byte(head), body[1:]...), nil
}

// Ready says the viewer runs, and gives the host Go's tables: what it
// may send and how to show what comes back.
type Ready struct {
	Version    int                          `json:"version"`
	Examples   []string                     `json:"examples"`
	Strategies []string                     `json:"strategies"`
	Kinds      map[string]map[string]string `json:"kinds"` // each kind's colour, per theme
	Keys       []viz.KeyBinding             `json:"keys"`
	Defaults   protocol.Options             `json:"defaults"`
	Alignments []planner.InputAlignment     `json:"alignments"`
	F32Budget  int64                        `json:"f32_uniform_budget"`
	F32Text    string                       `json:"f32_uniform_budget_text"`
	FileTypes  []string                     `json:"file_types"`
	Profiles   []ProfileChoice              `json:"profiles"`
	// Baseline is the strategy that shares no bytes: what a comparison
	// measures reuse against.
	Baseline string   `json:"baseline"`
	Bindings []string `json:"bindings"`
	// MaxInput is the largest file the page plans: a host that fetches
	// a file itself stops reading past it and sends TooLarge instead.
	MaxInput int64 `json:"max_input"`
}

// ProfileChoice is a WebGPU profile as the page offers it, with its
// limits in words.
type ProfileChoice struct {
	planner.Profile
	Text string `json:"text"` // "binding 128 MiB, buffer 256 MiB"
}

// Pong answers Ping.
type Pong struct {
	Version int `json:"version"`
}

// Busy says planning has started.
type Busy struct {
	File    string `json:"file"`
	Message string `json:"message,omitempty"`
}

// Progress is how far a long search got.
type Progress struct {
	File    string `json:"file"`
	Message string `json:"message"`
}

// Summary says a plan is on screen. A Tensors event with its tensors
// follows.
type Summary struct {
	File    string      `json:"file"`
	Summary PlanSummary `json:"summary"`
}

// Tensors follows the Summary of a plan with the plan's tensors, for a
// table: they travel beside it as tensors_json, the record's tensors as
// UTF-8 JSON in a Uint8Array. They come after the summary, not with it:
// writing them took the worker a tenth of a second for 62,000 tensors,
// and the host a tenth more to read, which the picture and the summary
// need not wait for.
//
// While the plan is placed by hand the table follows what is on screen: a
// later Tensors event of the same plan, Rev higher, replaces the table
// with the placement's offsets and reuses (Placing), or with the
// planner's again once placing stops.
type Tensors struct {
	File string `json:"file"`
	// Rev counts the tables sent of the plan on screen: 0 for the
	// planner's, first; each one after (placing started, a change to
	// the placement, placing stopped) one more. A host shows the table
	// of the highest Rev it has heard since the summary, so a late
	// first table does not undo a placement's.
	Rev int `json:"rev,omitempty"`
	// Placing: the offsets and reuses are the placement by hand's;
	// false: the planner's.
	Placing bool `json:"placing,omitempty"`
}

// PlanSummary is the plan on screen, in numbers and in Go's words.
type PlanSummary struct {
	Name     string `json:"name"`
	Strategy string `json:"strategy"`
	Optimal  bool   `json:"optimal"`
	// Proven: no smaller arena exists, by the lower bound or by exact's
	// finished search (the record's optimal or optimal_by_search).
	Proven        bool                `json:"proven"`
	ArenaSize     int64               `json:"arena_size"`
	LowerBound    int64               `json:"lower_bound"`
	TotalUnshared int64               `json:"total_unshared"`
	Saved         int64               `json:"saved"`
	Fragmentation float64             `json:"fragmentation"`
	Steps         int                 `json:"steps"`
	Tensors       int                 `json:"tensors"`
	Alignment     int64               `json:"alignment"`
	Options       planner.Options     `json:"options"`
	Notes         []string            `json:"notes"`
	Symbols       map[string]int64    `json:"symbols"`
	Budget        int64               `json:"budget"`
	OverBudget    bool                `json:"over_budget"`
	Phases        []PhaseSummary      `json:"phases"`
	Order         json.RawMessage     `json:"placement_order"`
	Binding       string              `json:"binding"`
	Limits        *planner.Limits     `json:"limits"`
	Buffers       []planner.GPUBuffer `json:"buffers"`
	// AlignmentChosen is the alignment the page asked for (0: none),
	// DefaultAlignment what it gets by asking none.
	AlignmentChosen  int64        `json:"alignment_chosen"`
	DefaultAlignment int64        `json:"default_alignment"`
	Fit              *planner.Fit `json:"fit"`
	// Embed is the snippet that embeds this file as planned here.
	Embed string `json:"embed"`
	// Rows are the summary as the page lists it: label and text.
	Rows [][2]string `json:"rows"`
	// FitChoices are the symbols the page's "largest that fits" offers.
	FitChoices *protocol.FitChoices `json:"fit_choices"`
}

// PhaseSummary is one phase of the schedule and its peak.
type PhaseSummary struct {
	Phase string `json:"phase"`
	First int    `json:"first"`
	Last  int    `json:"last"`
	Peak  int64  `json:"peak"`
}

// ErrorEvent is an error: the whole message, where, what the user can
// do, and which plan stays on screen.
type ErrorEvent struct {
	protocol.Error
	Showing *string `json:"showing"`
	// FitChoices, for a file that did not plan, are what the page's
	// "largest that fits" offers to search in it (the symbols it lacks
	// values for); nil for errors of other kinds.
	FitChoices *protocol.FitChoices `json:"fit_choices,omitempty"`
}

// TensorInfo is a tensor as events carry it: its record, its index and
// fill, where it is drawn, and its details in Go's words.
type TensorInfo struct {
	Index  int                 `json:"index"`
	Tensor *planner.PlanTensor `json:"tensor"`
	Color  string              `json:"color"`
	Rect   *Rect               `json:"rect,omitempty"`
	Rows   [][2]string         `json:"rows"`
	Line   string              `json:"line"` // the tensor in one line, for lists
}

// Rect is a rectangle in the viewer's CSS pixels.
type Rect struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
	W float64 `json:"w"`
	H float64 `json:"h"`
}

// Hover is the tensor under the pointer (nil: none) and the pointer's
// place in viewer pixels.
type Hover struct {
	X      float64     `json:"x"`
	Y      float64     `json:"y"`
	Tensor *TensorInfo `json:"tensor"`
	Part   string      `json:"part,omitempty"`
}

// Selected is the selection and every tensor that used its bytes, and
// the time cursor's step as the selection was made (-1: hidden), so that
// a host answering a pick speaks of what its reader sees: whether the
// tensors not alive at the cursor's step are dimmed.
type Selected struct {
	Tensor   *TensorInfo  `json:"tensor"`
	Partners []TensorInfo `json:"partners"`
	Cursor   int          `json:"cursor"`
}

// CursorMoved is the time cursor's step and what it holds.
type CursorMoved struct {
	viz.CursorInfo
	Rows [][2]string `json:"rows"`
}

// Explained answers Explain.
type Explained struct {
	Tensor      string               `json:"tensor"`
	Text        string               `json:"text,omitempty"`
	Producer    string               `json:"producer,omitempty"`
	LastReader  string               `json:"last_reader,omitempty"`
	DeathReason string               `json:"death_reason,omitempty"`
	KeptBy      string               `json:"kept_by,omitempty"`
	Conflicts   []string             `json:"conflicts"`
	Rule        string               `json:"rule,omitempty"`
	Record      *planner.Explanation `json:"record,omitempty"`
	Error       string               `json:"error,omitempty"`
}

// State is the link that reopens what is on screen.
type State struct {
	Hash     string         `json:"hash"`
	Push     bool           `json:"push"`
	File     string         `json:"file"`
	Note     string         `json:"note,omitempty"`
	Restored *RestoredState `json:"restored,omitempty"`
}

// RestoredState is what a link that was just opened set, for the host's
// own controls.
type RestoredState struct {
	Options protocol.Options `json:"options"`
	Step    int              `json:"step"`
}

// RecordEvent answers Record: the plan record on screen (nil: none).
type RecordEvent struct {
	File   *string       `json:"file"`
	Record *planner.Plan `json:"record"`
}

// ProfileEvent answers ProfileQuery.
type ProfileEvent struct {
	Profile string `json:"profile"`
	Doc     string `json:"doc"`
	// Rows are the device's limits in words.
	Rows [][2]string `json:"rows"`
}

// CameraMoved is the world rectangle the user moved the camera to.
type CameraMoved struct {
	X0 float64 `json:"x0"`
	Y0 float64 `json:"y0"`
	X1 float64 `json:"x1"`
	Y1 float64 `json:"y1"`
}

// LargestEvent answers Largest: the search's answer, or its error.
type LargestEvent struct {
	File    string          `json:"file"`
	Symbol  string          `json:"symbol"`
	Largest json.RawMessage `json:"largest,omitempty"` // a planner.SymbolFit
	Error   *protocol.Error `json:"error,omitempty"`
}

// WordsWritten answers Words: each number as the pages write it,
// Grouped[i] with commas between thousands ("78,472") and Bytes[i] as a
// count of bytes ("78,472 bytes").
type WordsWritten struct {
	Grouped []string `json:"grouped"`
	Bytes   []string `json:"bytes"`
}

// Placed answers every Place and Placing: the planner's verdict on the
// placement by hand on screen (planner.Verify of the record of its
// offsets), and what the page needs to show it.
type Placed struct {
	File string `json:"file"`
	// Placing: a placement by hand is on screen; false after "stop" (the
	// other fields are then the planner's plan's).
	Placing bool `json:"placing"`
	viz.Verdict
	// Selected is the tensor selected, whose offset Offset is ("": none);
	// TabForward and TabBack whether Tab and Shift+Tab select another
	// buffer now, rather than move the focus on.
	Selected   string `json:"selected"`
	Offset     int64  `json:"offset"`
	TabForward bool   `json:"tab_forward"`
	TabBack    bool   `json:"tab_back"`
}

// HandPlace applies a Place command to h: the tensor named, at the
// offset. A name h's plan lacks, or an offset that cannot be the
// tensor's, is a *protocol.FieldError naming the field, and h is
// unchanged.
func HandPlace(h *viz.Hand, c *protocol.Place) error {
	i := h.Base.IndexOf(c.Name)
	if i < 0 {
		return &protocol.FieldError{Type: c.Type(), Field: "name", Msg: "no tensor " + ir.Quote(c.Name) + " in the plan on screen"}
	}
	if err := h.Base.CheckOffset(i, c.Offset); err != nil {
		field := "offset"
		if !h.Base.Tensors[i].Owns() {
			field = "name"
		}
		return &protocol.FieldError{Type: c.Type(), Field: field, Msg: err.Error()}
	}
	return h.Place(i, c.Offset, false)
}

// HandAct applies a Placing action other than start and stop to h.
func HandAct(h *viz.Hand, action string) error {
	var err error
	switch action {
	case "reset":
		err = h.Reset()
	case "empty":
		err = h.Empty()
	case "undo":
		_, err = h.Undo()
	case "redo":
		_, err = h.Redo()
	}
	return err
}

func (Placed) Type() string       { return "placed" }
func (Ready) Type() string        { return "ready" }
func (Pong) Type() string         { return "pong" }
func (Busy) Type() string         { return "busy" }
func (Progress) Type() string     { return "progress" }
func (Summary) Type() string      { return "summary" }
func (Tensors) Type() string      { return "tensors" }
func (ErrorEvent) Type() string   { return "error" }
func (Hover) Type() string        { return "hover" }
func (Selected) Type() string     { return "select" }
func (CursorMoved) Type() string  { return "cursor" }
func (Explained) Type() string    { return "explain" }
func (State) Type() string        { return "state" }
func (RecordEvent) Type() string  { return "record" }
func (ProfileEvent) Type() string { return "profile" }
func (CameraMoved) Type() string  { return "camera" }
func (LargestEvent) Type() string { return "largest" }
func (WordsWritten) Type() string { return "words" }
