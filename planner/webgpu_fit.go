package planner

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"memplan/ir"
)

// RequiredLimits is what a plan needs of a WebGPU device, ready to paste
// into requestDevice({requiredLimits}).
type RequiredLimits struct {
	MaxStorageBufferBindingSize     int64 `json:"maxStorageBufferBindingSize"`
	MaxBufferSize                   int64 `json:"maxBufferSize"`
	MinStorageBufferOffsetAlignment int64 `json:"minStorageBufferOffsetAlignment,omitempty"`
}

// gpuVerdict fills a Fit for a device: whether it fits, every violation,
// the limits that would make it run and the smallest named profile that
// has them. need is what the plan (or, without a plan, its tensors)
// requires; sizes are what a profile must hold for a re-plan to run:
// under arena binding the arena, under tensor binding the largest tensor
// and the largest span.
func gpuVerdict(binding string, l Limits, vs []Violation, need RequiredLimits, largestSpan int64) *Fit {
	f := &Fit{Limit: "WebGPU profile " + l.Profile, Binding: binding, Limits: &l, Violations: vs, Fits: len(vs) == 0, Required: &need}
	if binding == BindArena { // the line a viewer draws; tensor binding draws its cuts
		f.Budget = l.MaxStorageBufferBindingSize
		f.Over = max(need.MaxStorageBufferBindingSize-f.Budget, 0)
	}
	for _, p := range profiles {
		pl := p.Limits
		ok := need.MaxStorageBufferBindingSize <= pl.MaxStorageBufferBindingSize
		if binding == BindTensor {
			ok = ok && largestSpan <= pl.MaxBufferSize&^(max(pl.MinStorageBufferOffsetAlignment, need.MinStorageBufferOffsetAlignment)-1)
		} else {
			ok = ok && need.MaxBufferSize <= pl.MaxBufferSize
		}
		if ok {
			f.RunsOn = pl.Profile
			break
		}
	}
	// Concatenation rather than fmt: this is in both wasm programs.
	where := "WebGPU profile " + l.Profile + " (" + binding + " binding)"
	if f.Fits {
		f.Text = "fits " + where
	} else {
		f.Text = "does not fit " + where + ": " + strconv.Itoa(len(vs)) + " violation"
		if len(vs) != 1 {
			f.Text += "s"
		}
	}
	for _, v := range vs {
		f.Lines = append(f.Lines, v.Text+driverText(v))
	}
	switch {
	case binding == BindArena:
		f.Lines = append(f.Lines, "arena binding: the whole arena, "+FormatBytes(need.MaxStorageBufferBindingSize)+
			", is one binding; the device allows "+FormatBytes(l.MaxStorageBufferBindingSize))
	default:
		f.Lines = append(f.Lines, "tensor binding: the largest tensor is "+FormatBytes(need.MaxStorageBufferBindingSize)+
			"; the device allows "+FormatBytes(l.MaxStorageBufferBindingSize)+" a binding and "+FormatBytes(l.MaxBufferSize)+" a buffer")
	}
	req := `{"maxStorageBufferBindingSize":` + strconv.FormatInt(need.MaxStorageBufferBindingSize, 10) + `,"maxBufferSize":` + strconv.FormatInt(need.MaxBufferSize, 10)
	if need.MinStorageBufferOffsetAlignment > 0 {
		req += `,"minStorageBufferOffsetAlignment":` + strconv.FormatInt(need.MinStorageBufferOffsetAlignment, 10)
	}
	f.Lines = append(f.Lines, "requiredLimits: "+req+"}")
	switch {
	case f.RunsOn == "":
		f.Lines = append(f.Lines, "runs on: no named profile ("+strings.Join(ProfileNames(), ", ")+")")
	case binding == BindTensor:
		f.Lines = append(f.Lines, "runs on: "+f.RunsOn+" and larger, planned for it (the smallest named profile that holds it)")
	default:
		f.Lines = append(f.Lines, "runs on: "+f.RunsOn+" and larger (the smallest named profile that holds it)")
	}
	return f
}

// driverText says which symbols drive a violation's size and their values
// in this plan: " (its size grows with batch and seq; here batch=4,
// seq=2048)". (The values are this plan's, not a condition.)
func driverText(v Violation) string {
	if len(v.Symbols) == 0 {
		return ""
	}
	names := make([]string, len(v.Symbols))
	for i, s := range v.Symbols {
		names[i], _, _ = strings.Cut(s, "=")
	}
	list := names[0]
	if n := len(names); n > 1 {
		list = strings.Join(names[:n-1], ", ") + " and " + names[n-1]
	}
	return " (its size grows with " + list + "; here " + strings.Join(v.Symbols, ", ") + ")"
}

// FitGPU judges a plan against the WebGPU device it was planned for:
// under arena binding the arena (rounded up to 4) must fit one binding
// and one buffer; under tensor binding planning already kept every
// tensor within a binding and a buffer, so a plan always fits. Nil for
// a plan made for no device.
func (p *Plan) FitGPU() *Fit {
	if p.Binding == "" || p.Limits == nil {
		return nil
	}
	l := *p.Limits
	var vs []Violation
	var need RequiredLimits
	var largest int64
	if p.Binding == BindTensor {
		need.MinStorageBufferOffsetAlignment = l.MinStorageBufferOffsetAlignment
		for i := range p.Tensors {
			if t := &p.Tensors[i]; t.Placed() {
				need.MaxStorageBufferBindingSize = max(need.MaxStorageBufferBindingSize, alignUp(t.Size, 4))
				largest = max(largest, t.Size+t.Guard)
			}
		}
		for _, b := range p.Buffers {
			need.MaxBufferSize = max(need.MaxBufferSize, b.Size)
		}
		return gpuVerdict(p.Binding, l, nil, need, largest)
	}
	arena := alignUp(p.ArenaSize, 4)
	need.MaxStorageBufferBindingSize, need.MaxBufferSize = arena, arena
	for _, lim := range [...]struct {
		name string
		max  int64
	}{{"maxStorageBufferBindingSize", l.MaxStorageBufferBindingSize}, {"maxBufferSize", l.MaxBufferSize}} {
		if arena > lim.max {
			vs = append(vs, Violation{Size: arena, Limit: lim.name, Max: lim.max,
				Text: "the arena is " + FormatBytes(arena) + " (" + strconv.FormatInt(arena, 10) + " bytes), over " + lim.name + " " + FormatBytes(lim.max) + " by " + FormatBytes(arena-lim.max)})
		}
	}
	return gpuVerdict(p.Binding, l, vs, need, arena)
}

// FitOfLimits is the verdict when tensor binding could not plan at all:
// the tensors of e are too large for the device.
func FitOfLimits(e *LimitError) *Fit {
	need := RequiredLimits{MaxBufferSize: e.Limits.MaxBufferSize, MinStorageBufferOffsetAlignment: e.Limits.MinStorageBufferOffsetAlignment}
	var largest int64
	for _, v := range e.Violation {
		need.MaxStorageBufferBindingSize = max(need.MaxStorageBufferBindingSize, alignUp(v.Size, 4))
		largest = max(largest, v.Size)
	}
	need.MaxStorageBufferBindingSize = max(need.MaxStorageBufferBindingSize, e.Limits.MaxStorageBufferBindingSize)
	need.MaxBufferSize = max(need.MaxBufferSize, alignUp(largest, need.MinStorageBufferOffsetAlignment))
	return gpuVerdict(BindTensor, e.Limits, e.Violation, need, largest)
}

// ExplainFit names, for each violation of f, the symbols whose values drive
// its size: those that, doubled (or set to 1 from 0), change the
// tensor's size, or under arena binding the peak of live bytes. relower
// lowers the same source with other symbol values, as the caller read
// it; symbols are the values this plan used, and defs the definitions
// they were resolved from (nil: none). A symbol bound to an expression of
// others is not doubled alone: it follows each symbol it uses when that
// one is doubled, so the drivers named are symbols a user can set. It
// costs one lowering per symbol, no placement.
// (A function, not a method of Fit: the viewer links Fit, not this.)
func ExplainFit(f *Fit, symbols map[string]int64, defs ir.SymbolDefs, relower func(map[string]int64) (*Problem, error)) error {
	if f == nil || len(f.Violations) == 0 || len(symbols) == 0 {
		return nil
	}
	base, err := relower(symbols)
	if err != nil {
		return err
	}
	sizes := func(p *Problem) (map[string]int64, int64) {
		m := make(map[string]int64, len(p.Tensors))
		for i := range p.Tensors {
			m[p.Tensors[i].Name] = p.Tensors[i].Size
		}
		return m, LowerBound(p)
	}
	baseSizes, baseLB := sizes(base)
	names := make([]string, 0, len(symbols))
	for k := range symbols {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, s := range names {
		v := symbols[s]
		if v > ir.ByteLimit/2 || defs.Follows(s) {
			continue
		}
		bumped := make(map[string]int64, len(symbols))
		for k, x := range symbols {
			if !defs.Follows(k) {
				bumped[k] = x
			}
		}
		bumped[s] = max(2*v, 1)
		if len(defs) > 0 {
			var err error
			if bumped, err = defs.Resolve(bumped); err != nil {
				continue // the definitions take no such value (overflow): no verdict on it
			}
		}
		p, err := relower(bumped)
		if err != nil {
			continue // the source does not take that value: no verdict on it
		}
		sz, lb := sizes(p)
		for k := range f.Violations {
			vi := &f.Violations[k]
			changed := lb != baseLB
			if vi.Tensor != "" {
				changed = sz[vi.Tensor] != baseSizes[vi.Tensor]
			}
			if changed {
				vi.Symbols = append(vi.Symbols, fmt.Sprintf("%s=%d", s, v))
			}
		}
	}
	for k, v := range f.Violations {
		if k < len(f.Lines) {
			f.Lines[k] = v.Text + driverText(v)
		}
	}
	return nil
}
