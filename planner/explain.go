package planner

import (
	"fmt"
	"slices"
	"strings"

	"memplan/ir"
)

// Explanation says why a tensor lives when it does and sits where it
// does. It is built from the plan record alone: its liveness, the
// placement order and the rule the strategy recorded (PlacementRule), so
// nothing is planned again. Text is the same said in plain words.
type Explanation struct {
	Tensor string `json:"tensor"`
	Kind   Kind   `json:"kind"`
	Birth  int    `json:"birth"`
	Death  int    `json:"death"`
	// Producer is the op that writes it at its birth step, "" for a
	// tensor loaded before the run (input, param, constant).
	Producer   string `json:"producer,omitempty"`
	ProducerOp string `json:"producer_op,omitempty"`
	// Why it dies at Death: "last-read" (LastReader reads it last),
	// "view" (KeptBy, a view of it, is read last), "output" (a graph
	// output, or KeptBy is one), "loaded" (input, param or constant: the
	// whole run) or "pinned".
	DeathReason string `json:"death_reason"`
	LastReader  string `json:"last_reader,omitempty"`
	KeptBy      string `json:"kept_by,omitempty"`
	// Root is the tensor whose bytes a view borrows; Placement then
	// explains the root's place.
	Root       string `json:"root,omitempty"`
	ViewOffset int64  `json:"view_offset,omitempty"`
	Skipped    bool   `json:"skipped,omitempty"`
	// Placement: nil for a skipped tensor.
	Placement *PlaceReason `json:"placement,omitempty"`
	Text      string       `json:"text"`
}

// PlaceReason is why a buffer sits at its offset.
type PlaceReason struct {
	Buffer string `json:"buffer"` // the tensor that owns the bytes (the root, for a view)
	Offset int64  `json:"offset"`
	Span   int64  `json:"span"` // size plus guard
	Birth  int    `json:"birth"`
	Death  int    `json:"death"`
	// Rule is the plan's PlacementRule; Turn is the buffer's place in the
	// placement order from 1 (0 when the plan has none) of Of.
	Rule string `json:"rule"`
	Turn int    `json:"turn"`
	Of   int    `json:"of"`
	// Conflicts are the buffers it had to avoid: those placed before it
	// (all others, for a search) that are live at a common step, by offset.
	Conflicts []Neighbour `json:"conflicts"`
	// Gaps are the free byte ranges those left, low to high; the last is
	// the top, open upwards (Hi = -1). Chosen indexes the one it took.
	Gaps   []Gap `json:"gaps"`
	Chosen int   `json:"chosen"`
	// Holds is false when the recorded rule, replayed on Conflicts, would
	// not give this offset: a buffer first use moved off a fixed one
	// afterwards, or a fixed buffer (offsets a CSV or a forward plan gave).
	Holds bool `json:"holds"`
}

// Neighbour is a buffer placed before another and live at a common step.
type Neighbour struct {
	Name   string `json:"name"`
	Offset int64  `json:"offset"`
	End    int64  `json:"end"` // offset + size + guard
	Birth  int    `json:"birth"`
	Death  int    `json:"death"`
}

// Gap is a free byte range [Lo, Hi); Hi = -1 is open upwards. Fits says
// whether the buffer, aligned, fits in it. Under first use the open gap
// may start below Top, the highest byte placed so far: it is then a free
// block of Top - Lo bytes that can grow.
type Gap struct {
	Lo   int64 `json:"lo"`
	Hi   int64 `json:"hi"`
	Top  int64 `json:"top,omitempty"`
	Fits bool  `json:"fits"`
}

// blockSize is what a rule compares gaps by: their length, or for the open
// gap a free block's below Top that holds span bytes (-1: unbounded).
func (g Gap) blockSize(span, align int64) int64 {
	switch {
	case g.Hi >= 0:
		return g.Hi - g.Lo
	case g.Top > g.Lo && alignUp(g.Lo, align)+span <= g.Top:
		return g.Top - g.Lo
	}
	return -1
}

// Explain explains the plan's tensor named name. The plan must be one
// Verify accepts: its offsets and sums stay below ir.ByteLimit.
func Explain(plan *Plan, name string) (*Explanation, error) {
	ti := -1
	for i := range plan.Tensors {
		if plan.Tensors[i].Name == name {
			ti = i
			break
		}
	}
	if ti < 0 {
		return nil, fmt.Errorf("plan %s has no tensor %s", ir.Quote(plan.Name), ir.Quote(name))
	}
	t := &plan.Tensors[ti]
	e := &Explanation{Tensor: t.Name, Kind: t.Kind, Birth: t.Birth, Death: t.Death, Root: t.Root, ViewOffset: t.ViewOffset, Skipped: t.Skipped}
	e.lifetime(plan, ti)
	if !t.Skipped {
		owner := t
		if t.IsView() {
			for i := range plan.Tensors {
				if plan.Tensors[i].Name == t.Root {
					owner = &plan.Tensors[i]
				}
			}
		}
		if !owner.Skipped && owner.Placed() {
			e.Placement = placeReason(plan, owner)
		}
	}
	e.Text = e.text(plan)
	return e, nil
}

// loaded reports whether a kind is loaded before the run.
func loaded(k Kind) bool { return k == KindInput || k == KindParam || k == KindConstant }

// lifetime fills in why the tensor (index ti) is born and dies when it
// does. The record's reads (each step's inputs, views as themselves) say
// who reads it last; a record without them (a buffer list) takes the op
// at its death step.
func (e *Explanation) lifetime(plan *Plan, ti int) {
	t := &plan.Tensors[ti]
	if !loaded(t.Kind) && t.Birth < len(plan.Schedule) {
		e.Producer, e.ProducerOp = plan.Schedule[t.Birth], t.Op
	}
	isOutput := func(n string) bool { return slices.Contains(plan.IO.Outputs, n) }
	// through reports whether v reads through t: a view of it or, for a
	// view, a later view of the same root (the record names roots, not
	// parents).
	through := func(v *PlanTensor) bool {
		return v != t && (v.Root == t.Name || t.Root != "" && v.Root == t.Root && v.Birth > t.Birth)
	}
	d := t.Death
	readAt := func(k int) bool { // read at its death step, if the record says
		return plan.Reads == nil || d < len(plan.Reads) && slices.Contains(plan.Reads[d], k)
	}
	// The view that keeps it alive: read through it at its death step,
	// or for one that lives to the end, an output.
	var keeper *PlanTensor
	for i := range plan.Tensors {
		v := &plan.Tensors[i]
		if !through(v) || v.Death != d {
			continue
		}
		if d >= plan.Steps && isOutput(v.Name) || d < plan.Steps && readAt(i) && plan.Reads != nil {
			keeper = v
			break
		}
		if keeper == nil && plan.Reads == nil {
			keeper = v
		}
	}
	switch {
	case loaded(t.Kind):
		e.DeathReason = "loaded"
	case isOutput(t.Name):
		e.DeathReason = "output"
	case d >= plan.Steps && keeper != nil && isOutput(keeper.Name):
		e.DeathReason, e.KeptBy = "output", keeper.Name
	case d >= plan.Steps || d >= len(plan.Schedule):
		e.DeathReason = "pinned"
	case plan.Reads != nil && readAt(ti):
		e.DeathReason, e.LastReader = "last-read", plan.Schedule[d]
	case keeper != nil:
		e.DeathReason, e.KeptBy, e.LastReader = "view", keeper.Name, plan.Schedule[d]
	case d == t.Birth:
		// Written and never read again: it lives only at its own step.
		e.DeathReason = "unread"
	case plan.Reads != nil:
		e.DeathReason = "pinned"
	default:
		e.DeathReason, e.LastReader = "last-read", plan.Schedule[d]
	}
}

// placeReason replays the recorded rule for the placed tensor t: the
// buffers placed before it that share a step with it, the gaps they
// leave and the one the rule picks.
func placeReason(plan *Plan, t *PlanTensor) *PlaceReason {
	r := &PlaceReason{Buffer: t.Name, Offset: t.Offset, Span: t.Size + t.Guard, Birth: t.Birth, Death: t.Death,
		Rule: plan.PlacementRule, Of: len(plan.PlacementOrder)}
	if r.Rule == "" {
		r.Rule = RuleSearch
		if len(plan.PlacementOrder) > 0 {
			r.Rule = "" // a record from before rules were kept: order only
		}
	}
	byName := make(map[string]*PlanTensor, len(plan.Tensors))
	for i := range plan.Tensors {
		byName[plan.Tensors[i].Name] = &plan.Tensors[i]
	}
	span := func(o *PlanTensor) int64 { return o.Size + o.Guard }
	overlaps := func(o *PlanTensor) bool { return o.Birth <= t.Death && t.Birth <= o.Death }
	// before: the buffers placed earlier; top: the highest end among them.
	var before []*PlanTensor
	var top int64
	if r.Rule == RuleSearch || len(plan.PlacementOrder) == 0 {
		for i := range plan.Tensors {
			if o := &plan.Tensors[i]; o != t && o.Placed() && span(o) > 0 {
				before = append(before, o)
			}
		}
	} else {
		for k, n := range plan.PlacementOrder {
			if n == t.Name {
				r.Turn = k + 1
				break
			}
			if o := byName[n]; o != nil {
				before = append(before, o)
				top = max(top, o.Offset+span(o))
			}
		}
	}
	// By offset, then name; sorted as indexes, which costs the wasm programs
	// no new instance of the sort.
	var hits []int
	for k, o := range before {
		if overlaps(o) {
			hits = append(hits, k)
		}
	}
	slices.SortFunc(hits, func(a, b int) int {
		if c := cmpInt64(before[a].Offset, before[b].Offset); c != 0 {
			return c
		}
		return strings.Compare(before[a].Name, before[b].Name)
	})
	for _, k := range hits {
		o := before[k]
		r.Conflicts = append(r.Conflicts, Neighbour{o.Name, o.Offset, o.Offset + span(o), o.Birth, o.Death})
	}
	// The conflicts' bytes, merged; the gaps are what lies between.
	var lo int64
	align := max(plan.Alignment, 1)
	add := func(g Gap) {
		g.Fits = g.Hi < 0 || alignUp(g.Lo, align)+r.Span <= g.Hi
		r.Gaps = append(r.Gaps, g)
	}
	for k := 0; k < len(r.Conflicts); {
		c := r.Conflicts[k]
		hi := c.End
		for k++; k < len(r.Conflicts) && r.Conflicts[k].Offset <= hi; k++ {
			hi = max(hi, r.Conflicts[k].End)
		}
		if c.Offset > lo {
			add(Gap{Lo: lo, Hi: c.Offset})
		}
		lo = max(lo, hi)
	}
	open := Gap{Lo: lo, Hi: -1}
	switch r.Rule {
	case RuleFirstUse:
		// First use's free list reaches up to everything placed so far,
		// live or not: the block under that top can grow.
		open.Top = max(top, lo)
	case RuleStack:
		// No reuse takes no gap: it goes on top of everything before it.
		r.Gaps, open.Lo = nil, max(lo, top)
	}
	add(open)
	r.Chosen = -1
	for k, g := range r.Gaps {
		if g.Lo <= t.Offset && (g.Hi < 0 || t.Offset+r.Span <= g.Hi) {
			r.Chosen = k
		}
	}
	r.Holds = r.Chosen >= 0 && (r.Rule == RuleSearch || ruleOffset(r.Rule, r.Gaps, r.Span, align) == t.Offset)
	return r
}

// ruleOffset is the offset rule picks among gaps (the last one open
// upwards) for span bytes at alignment align; -1 for an unknown rule.
func ruleOffset(rule string, gaps []Gap, span, align int64) int64 {
	bounded := gaps[:len(gaps)-1]
	top := gaps[len(gaps)-1]
	switch rule {
	case RuleBestFit, RuleFirstUse:
		// The smallest block that holds it, the lowest of equal ones; the
		// open gap counts as a block only under first use, below its top.
		best, bestSize := top, top.blockSize(span, align)
		for _, g := range bounded {
			if g.Fits && (bestSize < 0 || g.Hi-g.Lo < bestSize || g.Hi-g.Lo == bestSize && g.Lo < best.Lo) {
				best, bestSize = g, g.Hi-g.Lo
			}
		}
		return alignUp(best.Lo, align)
	case RuleFirstFit:
		for _, g := range bounded {
			if g.Fits {
				return alignUp(g.Lo, align)
			}
		}
	case RuleStack:
	default:
		return -1
	}
	return alignUp(top.Lo, align)
}

// ruleWords say each rule in a sentence.
var ruleWords = map[string]string{
	RuleBestFit:  "best fit: the smallest gap that holds it, the lowest of equal ones, else on top",
	RuleFirstFit: "first fit: the lowest gap that holds it, else on top",
	RuleFirstUse: "first use: at its birth, the smallest free block that holds it, else the top of the arena so far",
	RuleStack:    "no reuse: right after every buffer placed before it",
	RuleSearch:   "a search placed the buffers together (the exact search, or the improver re-placing parts of a greedy answer)",
}

// text says the explanation in plain words, names as ir.Display shows
// them.
func (e *Explanation) text(plan *Plan) string {
	var b strings.Builder
	f := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	d := ir.Display
	f("%s (%s", d(e.Tensor), d(string(e.Kind)))
	if e.Root != "" {
		f(", a view of %s at byte %d", d(e.Root), e.ViewOffset)
	}
	f(")\n")
	end := e.Death
	f("Lives steps %d..%d.\n", e.Birth, end)
	switch {
	case e.Producer != "":
		f("Born at step %d: op %s (%s) writes it.\n", e.Birth, d(e.Producer), d(e.ProducerOp))
	case loaded(e.Kind):
		f("Loaded before the run (a %s).\n", e.Kind)
	}
	switch e.DeathReason {
	case "loaded":
		f("It lives over the whole run: a %s must survive to the next one.\n", e.Kind)
	case "output":
		if e.KeptBy != "" {
			f("It lives past the last step: its view %s is a graph output.\n", d(e.KeptBy))
		} else {
			f("It lives past the last step: it is a graph output.\n")
		}
	case "pinned":
		f("It lives to step %d because it is pinned there.\n", e.Death)
	case "view":
		f("Dies after step %d: its view %s is read last there, by op %s.\n", e.Death, d(e.KeptBy), d(e.LastReader))
	case "unread":
		f("Dies at its own step %d: nothing reads it later.\n", e.Death)
	default:
		f("Dies after step %d: op %s reads it last.\n", e.Death, d(e.LastReader))
	}
	if e.Skipped {
		f("Skipped by option: it takes no arena bytes.\n")
		return b.String()
	}
	r := e.Placement
	if r == nil {
		return b.String()
	}
	if e.Root != "" {
		f("It takes no bytes of its own: it sits inside %s, which is placed as follows.\n", d(e.Root))
	}
	f("%s sits at offset %d, %d bytes to %d", d(r.Buffer), r.Offset, r.Span, r.Offset+r.Span)
	for i := range plan.Tensors {
		if o := &plan.Tensors[i]; o.Name == r.Buffer && o.Guard > 0 {
			f(" (%d of them its guard)", o.Guard)
		}
	}
	f(".\n")
	if words, ok := ruleWords[r.Rule]; ok {
		f("Rule: %s.\n", words)
	}
	if r.Rule == RuleSearch && plan.OptimalBySearch {
		f("The search proved that no smaller arena exists.\n")
	}
	if r.Turn > 0 {
		f("It was placed %d of %d.\n", r.Turn, r.Of)
	}
	who := "placed before it"
	if r.Rule == RuleSearch {
		who = "in the plan"
	}
	if len(r.Conflicts) == 0 {
		f("No buffer %s is live at a common step: the arena was free.\n", who)
	} else {
		f("Live at a common step and %s (%d):", who, len(r.Conflicts))
		for k, c := range r.Conflicts {
			if k == 12 {
				f(" and %d more", len(r.Conflicts)-k)
				break
			}
			f(" %s [%d, %d)", d(c.Name), c.Offset, c.End)
		}
		f(".\n")
	}
	f("Gaps they leave:")
	const most = 12 // bounded gaps named; the rest are counted
	for k, g := range r.Gaps {
		mark := ""
		switch {
		case k == r.Chosen:
			mark = " (taken)"
		case !g.Fits:
			mark = " (too small)"
		}
		switch {
		case g.Hi < 0 && g.Top > g.Lo:
			f(" the free block [%d, %d) at the top of the arena so far, which can grow%s.", g.Lo, g.Top, mark)
		case g.Hi < 0:
			f(" the top, from %d%s.", g.Lo, mark)
		case k < most || k == r.Chosen:
			f(" [%d, %d)%s,", g.Lo, g.Hi, mark)
		case k == most:
			f(" … %d more,", len(r.Gaps)-1-most)
		}
	}
	f("\n")
	if !r.Holds && r.Rule != "" {
		f("The rule replayed here would not give this offset: first use moves buffers off fixed ones afterwards, and fixed buffers keep the offset they were given.\n")
	}
	return b.String()
}
