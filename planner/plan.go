package planner

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"
	"hash/fnv"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"memplan/ir"
)

// PlanFormat is the value of the "format" field of a plan record.
const PlanFormat = "memplan.plan/v1"

// Plan is the record of a placed problem: the memplan.plan/v1 JSON.
type Plan struct {
	Format     string `json:"format"`
	Name       string `json:"name"`
	ArenaSize  int64  `json:"arena_size"`
	LowerBound int64  `json:"lower_bound"`
	// AlignedLowerBound also counts the padding alignment forces between
	// live buffers (AlignedLowerBound); "optimal" is claimed against it.
	AlignedLowerBound int64   `json:"aligned_lower_bound"`
	TotalUnshared     int64   `json:"total_unshared"`
	Saved             int64   `json:"saved"`
	Fragmentation     float64 `json:"fragmentation"`
	Alignment         int64   `json:"alignment"`
	Strategy          string  `json:"strategy"`
	// Optimal is true exactly when the arena equals the aligned lower
	// bound: the one proof of optimality Verify can check.
	Optimal bool `json:"optimal"`
	// OptimalBySearch is exact's word that no smaller arena exists when
	// the arena is above the aligned lower bound (its search finished):
	// a label Verify cannot check, as it cannot run the search again.
	OptimalBySearch bool    `json:"optimal_by_search,omitempty"`
	Options         Options `json:"options"`
	// Steps is the number of schedule steps; tensors may live to step
	// Steps, one past the last node.
	Steps    int      `json:"steps"`
	Schedule []string `json:"schedule"`
	// Phases is each scheduled node's phase ("" for none), present when
	// any node has one.
	Phases []string `json:"phases,omitempty"`
	// Reads lists, for each step, the indexes into Tensors of the tensors
	// its op reads; absent for a buffer list. A graph's record always
	// has it, [] for no steps (omitzero keeps an empty list): it is what
	// tells a graph of no nodes from a buffer list of no rows.
	Reads   [][]int          `json:"reads,omitzero"`
	Tensors []PlanTensor     `json:"tensors"`
	IO      IO               `json:"io"`
	Symbols map[string]int64 `json:"symbols"`
	Notes   []string         `json:"notes,omitempty"`
	// PlacementOrder names the tensors that own bytes in the order the
	// strategy placed them (Placement.Order); absent when it did not
	// place them one at a time.
	PlacementOrder []string `json:"placement_order,omitempty"`
	// Binding, Limits and Buffers say how the plan binds to a WebGPU
	// device, when it was planned for one: the binding model ("arena"
	// or "tensor"), the device limits, and under tensor binding the GPU
	// buffers the arena is cut into (docs/plan-format.md).
	Binding string      `json:"binding,omitempty"`
	Limits  *Limits     `json:"limits,omitempty"`
	Buffers []GPUBuffer `json:"buffers,omitempty"`
	// PlacementRule is how the strategy chose each offset (Placement.Rule):
	// with the order, what Explain needs to say why a tensor sits where it
	// does. Not hashed: it describes how the plan was made, not the plan.
	PlacementRule string `json:"placement_rule,omitempty"`
	Fingerprint   string `json:"fingerprint"`
}

// GPUBuffer is one GPU buffer of a plan under tensor binding: bytes
// [Offset, Offset+Size) of the arena. Size is a multiple of 4.
type GPUBuffer struct {
	Offset int64 `json:"offset"`
	Size   int64 `json:"size"`
}

// BufferSlot is where a tensor is bound under tensor binding: the index
// of its GPU buffer and its offset inside it.
type BufferSlot struct {
	Buffer       int   `json:"buffer"`
	BufferOffset int64 `json:"buffer_offset"`
}

// PlanTensor is one tensor of the plan record.
type PlanTensor struct {
	Name   string  `json:"name"`
	Op     string  `json:"op"`
	Node   string  `json:"node,omitempty"`
	Phase  string  `json:"phase,omitempty"` // of the producing node
	Kind   Kind    `json:"kind"`
	Shape  []int64 `json:"shape"`
	DType  string  `json:"dtype"`
	Size   int64   `json:"size"`
	Offset int64   `json:"offset"` // -1 when skipped
	Guard  int64   `json:"guard"`
	Birth  int     `json:"birth"`
	Death  int     `json:"death"` // inclusive
	// Reuses names the tensor that last held any of these bytes before
	// this one was born.
	Reuses     string `json:"reuses,omitempty"`
	Root       string `json:"root,omitempty"`
	ViewOffset int64  `json:"view_offset"`
	Skipped    bool   `json:"skipped,omitempty"`
	// Alignment is the tensor's own offset alignment, when it owns bytes
	// and its alignment differs from the plan's (a buffer CSV's alignment
	// column); 0 otherwise.
	Alignment int64 `json:"alignment,omitempty"`
	// Under tensor binding, tensors with bytes in a GPU buffer say which
	// and where (the fields buffer and buffer_offset); nil otherwise.
	*BufferSlot
}

// IsView reports whether the tensor borrows another's bytes.
func (t *PlanTensor) IsView() bool { return t.Root != "" }

// Placed reports whether the tensor owns arena bytes.
func (t *PlanTensor) Placed() bool { return !t.Skipped && t.Root == "" }

// NewPlan builds the plan record of a problem and its placement.
func NewPlan(p *Problem, strategy string, pl Placement) *Plan {
	lb := LowerBound(p)
	alb := alignedLowerBound(p, lb)
	plan := &Plan{
		Format:            PlanFormat,
		Name:              p.Name,
		ArenaSize:         pl.Arena,
		LowerBound:        lb,
		AlignedLowerBound: alb,
		TotalUnshared:     TotalUnshared(p),
		Alignment:         p.Alignment,
		Strategy:          strategy,
		Optimal:           pl.Arena == alb,
		OptimalBySearch:   pl.Optimal && pl.Arena != alb,
		Options:           p.Options,
		Steps:             p.Steps,
		Schedule:          p.Schedule,
		Phases:            p.Phases,
		Reads:             p.Reads,
		IO:                p.IO,
		Symbols:           p.Symbols,
		Notes:             p.Notes,
	}
	if plan.Schedule == nil {
		plan.Schedule = []string{}
	}
	if plan.Symbols == nil {
		plan.Symbols = map[string]int64{}
	}
	plan.Saved = plan.TotalUnshared - plan.ArenaSize
	plan.Fragmentation = fragmentation(pl.Arena, lb)
	// The reuses, the costliest part of the record on large problems, are
	// found beside the building of the rest and filled in after.
	reused := startWork(func() []int { return ReusedFrom(p, pl.Offsets) })
	plan.Tensors = make([]PlanTensor, len(p.Tensors))
	for i := range p.Tensors {
		ti := &p.Tensors[i]
		t := PlanTensor{
			Name: ti.Name, Op: ti.Op, Node: ti.Node, Phase: ti.Phase, Kind: ti.Kind, Shape: ti.Shape, DType: ti.DType,
			Size: ti.Size, Offset: -1, Guard: ti.Guard, Birth: ti.Birth, Death: ti.Death,
			Skipped: ti.Skipped,
		}
		if t.Shape == nil {
			t.Shape = []int64{}
		}
		switch {
		case ti.Skipped:
		case ti.Buffer >= 0:
			t.Offset = pl.Offsets[ti.Buffer]
			if a := p.Buffers[ti.Buffer].Align; a != p.Alignment {
				t.Alignment = a
			}
		default: // view
			root := &p.Tensors[ti.Root]
			t.Root = root.Name
			t.ViewOffset = ti.ViewOffset
			if !root.Skipped {
				t.Offset = pl.Offsets[root.Buffer] + ti.ViewOffset
			}
		}
		plan.Tensors[i] = t
	}
	// The record says the GPU as binding and limits, and the forward
	// plan's weights as the fixed offsets it has.
	plan.Options.GPU, plan.Options.SharedWeights = nil, nil
	if p.GPU != nil {
		plan.setGPU(p.GPU, p.Cut)
	}
	if pl.Order != nil {
		plan.PlacementOrder = make([]string, len(pl.Order))
		for k, i := range pl.Order {
			plan.PlacementOrder[k] = p.Tensors[p.Buffers[i].Tensor].Name
		}
	}
	plan.PlacementRule = pl.Rule
	// The hash reads neither the reuses nor the order, so it runs while
	// the reuses are still being found.
	plan.Fingerprint = plan.ComputeFingerprint()
	reuses := reused()
	for i := range p.Tensors {
		if ti := &p.Tensors[i]; !ti.Skipped && ti.Buffer >= 0 {
			if r := reuses[ti.Buffer]; r >= 0 {
				plan.Tensors[i].Reuses = p.Tensors[p.Buffers[r].Tensor].Name
			}
		}
	}
	return plan
}

// fragmentation is the arena over the lower bound, rounded to six
// decimals (1 when the bound is 0), as the record states it.
func fragmentation(arena, lb int64) float64 {
	if lb <= 0 {
		return 1
	}
	return math.Round(float64(arena)/float64(lb)*1e6) / 1e6
}

// TotalUnshared is the arena that no reuse would need: every buffer's
// span, each rounded up to its alignment, laid end to end.
func TotalUnshared(p *Problem) int64 {
	var end int64
	for i := range p.Buffers {
		b := &p.Buffers[i]
		if b.Span() > 0 {
			end = alignUp(end, b.Align) + b.Span()
		}
	}
	return end
}

// ComputeFingerprint hashes what identifies the plan: the problem's
// structure (names, shapes, sizes, live ranges, options) and the answer
// (offsets, arena). It ignores the fingerprint field itself and anything
// that is only presentation, so it is stable across runs and machines.
// It is a cache key, not a seal (anyone can recompute it), so a 128-bit
// FNV-1a does: SHA-256 pulled 44 KB of the standard library's FIPS
// code into the page's wasm.
func (p *Plan) ComputeFingerprint() string {
	h := &fingerprintHash{h: fnv.New128a()}
	h.str(PlanFormat)
	h.str(p.Name)
	h.i64(p.ArenaSize)
	h.i64(p.Alignment)
	h.str(p.Strategy)
	h.int(p.Steps)
	opts, _ := ir.EncodeJSON(p.Options, "") // struct fields marshal in a fixed order
	h.str(string(opts))
	syms := make([]string, 0, len(p.Symbols))
	for k, v := range p.Symbols {
		syms = append(syms, fmt.Sprintf("%s=%d", k, v))
	}
	slices.Sort(syms)
	h.str(strings.Join(syms, ","))
	h.int(len(p.Schedule))
	for _, s := range p.Schedule {
		h.str(s)
	}
	if len(p.Phases) > 0 { // hashed only when present: older plans keep their fingerprints
		h.str("phases")
		h.int(len(p.Phases))
		for _, s := range p.Phases {
			h.str(s)
		}
	}
	if p.Reads != nil { // hashed only when present, like phases
		h.str("reads")
		h.int(len(p.Reads))
		for _, r := range p.Reads {
			h.int(len(r))
			for _, t := range r {
				h.int(t)
			}
		}
	}
	h.int(len(p.Tensors))
	for i := range p.Tensors {
		t := &p.Tensors[i]
		h.str(t.Name)
		h.str(t.Op)
		h.str(string(t.Kind))
		h.str(t.DType)
		h.i64(t.Size)
		h.i64(t.Offset)
		h.i64(t.Guard)
		h.int(t.Birth)
		h.int(t.Death)
		h.str(t.Root)
		h.i64(t.ViewOffset)
		h.boolean(t.Skipped)
		h.int(len(t.Shape))
		for _, d := range t.Shape {
			h.i64(d)
		}
	}
	for i := range p.Tensors { // hashed only when present, like phases
		if a := p.Tensors[i].Alignment; a != 0 {
			h.str("alignment")
			h.int(i)
			h.i64(a)
		}
	}
	if p.Binding != "" { // hashed only when present: older plans keep their fingerprints
		h.str("gpu")
		h.str(p.Binding)
		if l := p.Limits; l != nil {
			h.str(l.Profile)
			h.i64(l.MaxStorageBufferBindingSize)
			h.i64(l.MaxBufferSize)
			h.i64(l.MinStorageBufferOffsetAlignment)
		}
		h.int(len(p.Buffers))
		for _, b := range p.Buffers {
			h.i64(b.Offset)
			h.i64(b.Size)
		}
		for i := range p.Tensors {
			if s := p.Tensors[i].BufferSlot; s != nil {
				h.int(i)
				h.int(s.Buffer)
				h.i64(s.BufferOffset)
			}
		}
	}
	return hex.EncodeToString(h.sum()[:16])
}

// fingerprintHash feeds the fingerprint's hash: each integer as 8 bytes
// little-endian, a string as its length then its bytes, a bool as one
// byte. It gathers them in a fixed buffer and hashes it in pieces: a plan
// of 60,000 tensors is millions of values, and writing each through
// encoding/binary's reflection cost a fifth of a second in wasm. The
// buffer is an array, not a slice, so filling it stores no pointer (no
// write barrier while the collector runs).
type fingerprintHash struct {
	h   hash.Hash
	n   int
	buf [8 << 10]byte
}

func (f *fingerprintHash) int(v int) { f.i64(int64(v)) }

func (f *fingerprintHash) i64(v int64) {
	if f.n+8 > len(f.buf) {
		f.flush()
	}
	binary.LittleEndian.PutUint64(f.buf[f.n:], uint64(v))
	f.n += 8
}

func (f *fingerprintHash) str(s string) {
	f.i64(int64(len(s)))
	for len(s) > 0 {
		if f.n == len(f.buf) {
			f.flush()
		}
		c := copy(f.buf[f.n:], s)
		f.n, s = f.n+c, s[c:]
	}
}

func (f *fingerprintHash) boolean(b bool) {
	if f.n == len(f.buf) {
		f.flush()
	}
	f.buf[f.n] = 0
	if b {
		f.buf[f.n] = 1
	}
	f.n++
}

func (f *fingerprintHash) flush() {
	f.h.Write(f.buf[:f.n])
	f.n = 0
}

func (f *fingerprintHash) sum() []byte {
	f.flush()
	return f.h.Sum(nil)
}

// WriteReport writes the text report: a header line with the totals, then
// one row per placed tensor, `offset size name`, sorted by offset. Names
// are shown as ir.Display shows them: a name cannot add a row.
func (p *Plan) WriteReport(w io.Writer) error {
	_, err := fmt.Fprintf(w, "# arena_size=%d total_unshared=%d saved=%d lower_bound=%d aligned_lower_bound=%d fragmentation=%.4f strategy=%s\n",
		p.ArenaSize, p.TotalUnshared, p.Saved, p.LowerBound, p.AlignedLowerBound, p.Fragmentation, ir.Display(p.Strategy))
	if err != nil {
		return err
	}
	// By offset, the largest first where offsets tie, then in tensor
	// order; a radix sort, since comparing a million rows took a third of
	// a second.
	rows := make([]keyed, 0, len(p.Tensors))
	for i := range p.Tensors {
		if t := &p.Tensors[i]; t.Offset >= 0 {
			rows = append(rows, keyed{k: [4]int64{t.Offset, -t.Size}, i: i})
		}
	}
	// Rows are appended to a buffer written in chunks: a write, or an
	// Fprintf, per row cost a tenth of planning a million buffers.
	buf := make([]byte, 0, 64<<10)
	for _, i := range sortedIndices(rows) {
		t := &p.Tensors[i]
		buf = strconv.AppendInt(buf, t.Offset, 10)
		buf = append(buf, ' ')
		buf = strconv.AppendInt(buf, t.Size, 10)
		buf = append(buf, ' ')
		buf = append(buf, ir.Display(t.Name)...)
		buf = append(buf, '\n')
		if len(buf) > 60<<10 {
			if _, err := w.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
	}
	_, err = w.Write(buf)
	return err
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
