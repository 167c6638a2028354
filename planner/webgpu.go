package planner

import (
	"cmp"
	_ "embed"
	"fmt"
	"strconv"
	"strings"

	"memplan/ir"
)

// WebGPU planning: a device's limits (named profiles, data in
// webgpu_profiles.json, or custom ones), the two ways a runtime binds the
// arena, and the constraint tensor binding puts on every strategy.

// Limits are the WebGPU device limits a plan depends on, under WebGPU's
// own names so that they paste into requestDevice({requiredLimits}).
// Profile names the profile they came from ("custom" when changed).
type Limits struct {
	Profile                         string `json:"profile"`
	MaxStorageBufferBindingSize     int64  `json:"maxStorageBufferBindingSize"`
	MaxBufferSize                   int64  `json:"maxBufferSize"`
	MinStorageBufferOffsetAlignment int64  `json:"minStorageBufferOffsetAlignment"`
}

// Profile is a named set of limits, with what kind of device has them.
type Profile struct {
	Limits
	Doc string `json:"doc"`
}

//go:embed webgpu_profiles.json
var profilesJSON []byte

// profiles is the table, smallest first, read once.
var profiles = func() []Profile {
	// Read with ir's JSON reader: the planner worker links no other.
	var out []Profile
	r := ir.NewJSONReader("webgpu_profiles.json", profilesJSON)
	err := r.Struct([]string{"note", "profiles"}, func(key string) error {
		if key == "note" {
			_, err := r.String()
			return err
		}
		return r.Array(func(int) error {
			var p Profile
			err := r.Struct([]string{"name", "doc", "maxStorageBufferBindingSize", "maxBufferSize", "minStorageBufferOffsetAlignment"}, func(key string) error {
				var err error
				switch key {
				case "name":
					p.Profile, err = r.String()
				case "doc":
					p.Doc, err = r.String()
				case "maxStorageBufferBindingSize":
					p.MaxStorageBufferBindingSize, err = r.Int()
				case "maxBufferSize":
					p.MaxBufferSize, err = r.Int()
				default:
					p.MinStorageBufferOffsetAlignment, err = r.Int()
				}
				return err
			})
			out = append(out, p)
			return err
		})
	})
	if err == nil {
		err = r.End()
	}
	if err != nil {
		panic("planner: webgpu_profiles.json: " + err.Error()) // built in: a test reads it
	}
	return out
}()

// DefaultProfile is the profile used when limits are wanted but none named.
const DefaultProfile = "default"

// Profiles lists the named WebGPU profiles, smallest first.
func Profiles() []Profile { return append([]Profile(nil), profiles...) }

// ProfileNames lists the profiles' names in table order.
func ProfileNames() []string {
	names := make([]string, len(profiles))
	for i, p := range profiles {
		names[i] = p.Profile
	}
	return names
}

// ProfileLimits returns the limits of a named profile.
func ProfileLimits(name string) (Limits, error) {
	for _, p := range profiles {
		if p.Profile == name {
			return p.Limits, nil
		}
	}
	return Limits{}, fmt.Errorf("unknown WebGPU profile %s (known: %s)", ir.Quote(name), strings.Join(ProfileNames(), ", "))
}

// ParseLimits changes some of base's limits as the command line's
// --limits writes them: "binding=1GiB,buffer=1GiB,offset-align=256",
// sizes in the units ParseSize reads. The result is named "custom".
func ParseLimits(base Limits, text string) (Limits, error) {
	l := base
	seen := map[string]bool{}
	for _, part := range strings.FieldsFunc(text, func(r rune) bool { return r == ',' || r == ' ' }) {
		key, val, ok := strings.Cut(part, "=")
		if !ok {
			return l, fmt.Errorf("limits: %s is not name=size (binding, buffer or offset-align)", ir.Quote(part))
		}
		var dst *int64
		switch key {
		case "binding":
			dst = &l.MaxStorageBufferBindingSize
		case "buffer":
			dst = &l.MaxBufferSize
		case "offset-align":
			dst = &l.MinStorageBufferOffsetAlignment
		default:
			return l, fmt.Errorf("limits: unknown limit %s (want binding, buffer or offset-align)", ir.Quote(key))
		}
		if seen[key] {
			return l, fmt.Errorf("limits: %s is given twice", ir.Quote(key))
		}
		seen[key] = true
		n, err := ParseSize(val)
		if err != nil {
			return l, fmt.Errorf("limits: %s: %v", key, err)
		}
		*dst = n
		l.Profile = "custom"
	}
	return l, l.Check()
}

// Check reports limits no device has: sizes that are zero or not a
// multiple of 4 (a binding's size always is), an alignment that is not a
// power of two, a binding larger than a buffer.
func (l Limits) Check() error {
	switch {
	case l.MaxStorageBufferBindingSize <= 0 || l.MaxStorageBufferBindingSize%4 != 0 || l.MaxStorageBufferBindingSize >= ir.ByteLimit:
		return fmt.Errorf("limits: maxStorageBufferBindingSize %d is not a positive multiple of 4 below 2^62", l.MaxStorageBufferBindingSize)
	case l.MaxBufferSize <= 0 || l.MaxBufferSize%4 != 0 || l.MaxBufferSize >= ir.ByteLimit:
		return fmt.Errorf("limits: maxBufferSize %d is not a positive multiple of 4 below 2^62", l.MaxBufferSize)
	case !isPow2(l.MinStorageBufferOffsetAlignment) || l.MinStorageBufferOffsetAlignment < 4 || l.MinStorageBufferOffsetAlignment > l.MaxBufferSize:
		return fmt.Errorf("limits: minStorageBufferOffsetAlignment %d is not a power of two from 4 up to maxBufferSize", l.MinStorageBufferOffsetAlignment)
	case l.MaxStorageBufferBindingSize > l.MaxBufferSize:
		return fmt.Errorf("limits: maxStorageBufferBindingSize %d is larger than maxBufferSize %d, and a binding lies inside one buffer", l.MaxStorageBufferBindingSize, l.MaxBufferSize)
	}
	return nil
}

// Binding models: how a runtime binds the arena's bytes to its shaders.
const (
	// BindArena: the whole arena is one buffer, bound once; the shaders
	// index into it. The arena must fit one binding.
	BindArena = "arena"
	// BindTensor: each tensor is bound at its own offset. Offsets are
	// multiples of minStorageBufferOffsetAlignment, each tensor fits one
	// binding, and the arena is cut into buffers of at most maxBufferSize
	// that no tensor straddles.
	BindTensor = "tensor"
)

// GPU is the WebGPU device a problem is planned for.
type GPU struct {
	Binding string // BindArena or BindTensor
	Limits  Limits
}

// ResolveGPU reads the WebGPU choices as the command line, a link and
// the page give them: a profile name, custom limits over it, a binding
// model. The one rule: a profile names the device, and binding and
// limits apply only with one. Without a profile there is no GPU (nil),
// whatever the other two say: they say how a device is bound and how it
// differs from its profile, and the page's form keeps its binding and
// limits fields while its device is "none". (The command line refuses
// --binding and --limits without --webgpu, rather than drop what was
// typed.)
func ResolveGPU(profile, limits, binding string) (*GPU, error) {
	if profile == "" {
		return nil, nil
	}
	g, err := NewGPU(profile, binding)
	if err != nil || limits == "" {
		return g, err
	}
	if g.Limits, err = ParseLimits(g.Limits, limits); err != nil {
		return nil, err
	}
	return g, nil
}

// NewGPU is a device of a named profile ("" for the default) under a
// binding model ("" for arena).
func NewGPU(profile, binding string) (*GPU, error) {
	g := &GPU{Binding: BindArena}
	switch binding {
	case "", BindArena:
	case BindTensor:
		g.Binding = BindTensor
	default:
		return nil, fmt.Errorf("binding %s: want arena or tensor", ir.Quote(binding))
	}
	var err error
	if g.Limits, err = ProfileLimits(cmp.Or(profile, DefaultProfile)); err != nil {
		return nil, err
	}
	return g, nil
}

// target sets a lowered problem up for the GPU. Under tensor binding
// every buffer's alignment rises to minStorageBufferOffsetAlignment and
// the arena is cut at multiples of Cut: maxBufferSize rounded down to the
// largest alignment, so that each piece starts aligned.
func (p *Problem) target(g *GPU) error {
	p.GPU = g
	if g == nil {
		return nil
	}
	if err := g.Limits.Check(); err != nil {
		return err
	}
	if g.Binding != BindTensor {
		return nil
	}
	a := g.Limits.MinStorageBufferOffsetAlignment
	p.Alignment = max(p.Alignment, a)
	maxAlign := p.Alignment
	for i := range p.Buffers {
		b := &p.Buffers[i]
		b.Align = max(b.Align, a)
		maxAlign = max(maxAlign, b.Align)
		if b.Fixed && b.Offset%b.Align != 0 {
			return p.bufferErr(i, "fixed offset %d is not a multiple of %d, the device's storage offset alignment", b.Offset, b.Align)
		}
	}
	p.Cut = g.Limits.MaxBufferSize &^ (maxAlign - 1)
	if p.Cut == 0 {
		return fmt.Errorf("limits: maxBufferSize %d is below the alignment %d", g.Limits.MaxBufferSize, maxAlign)
	}
	return nil
}

// LegalOffset is the smallest offset at or above off where a span of
// span bytes may start: a multiple of align and, when the arena is cut
// (cut > 0, a multiple of align), inside one piece. Every strategy asks
// it for its candidate offsets, so the cuts are a constraint they place
// under, not a check afterwards. A span larger than cut has no legal
// offset; Problem.Check refuses those first.
func legalOffset(off, span, align, cut int64) int64 {
	off = alignUp(off, align)
	if cut > 0 && span > 0 && off/cut != (off+span-1)/cut {
		off = (off/cut + 1) * cut
	}
	return off
}

// legal is legalOffset for buffer b of this problem.
func (p *Problem) legal(off int64, b *Buffer) int64 {
	return legalOffset(off, b.Span(), b.Align, p.Cut)
}

// LimitError reports tensors that no plan can bind under the device's
// limits: each larger than one binding, or, with its guard, than one
// buffer. It lists them all, so a report can name every one.
type LimitError struct {
	File      string
	Limits    Limits
	Violation []Violation
}

func (e *LimitError) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File + ": ")
	}
	for i, v := range e.Violation {
		if i > 0 {
			b.WriteString("; ")
		}
		if i == 3 && len(e.Violation) > 4 {
			fmt.Fprintf(&b, "and %d more tensors", len(e.Violation)-3)
			break
		}
		b.WriteString(v.Text)
	}
	return b.String()
}

// Violation is one way a plan breaks a device limit.
type Violation struct {
	Tensor string `json:"tensor,omitempty"` // "" for the arena as a whole
	Size   int64  `json:"size"`             // bytes the limit is compared with
	Limit  string `json:"limit"`            // the WebGPU limit's name
	Max    int64  `json:"max"`              // its value
	// Symbols names the symbols whose values drive Size, when known.
	Symbols []string `json:"symbols,omitempty"`
	Text    string   `json:"text"`
}

// checkGPU reports the tensors that cannot be bound under tensor binding.
func (p *Problem) checkGPU() error {
	if p.GPU == nil || p.GPU.Binding != BindTensor {
		return nil
	}
	l := p.GPU.Limits
	e := &LimitError{File: p.File, Limits: l}
	for i := range p.Buffers {
		b := &p.Buffers[i]
		name := p.Tensors[b.Tensor].Name
		// Concatenation rather than fmt: this is in both wasm programs.
		switch {
		case b.Size > l.MaxStorageBufferBindingSize:
			e.Violation = append(e.Violation, Violation{Tensor: name, Size: b.Size, Limit: "maxStorageBufferBindingSize", Max: l.MaxStorageBufferBindingSize,
				Text: "tensor " + ir.Quote(name) + " is " + FormatBytes(b.Size) + " (" + strconv.FormatInt(b.Size, 10) + " bytes), over maxStorageBufferBindingSize " + FormatBytes(l.MaxStorageBufferBindingSize)})
		case b.Span() > p.Cut:
			e.Violation = append(e.Violation, Violation{Tensor: name, Size: b.Span(), Limit: "maxBufferSize", Max: p.Cut,
				Text: "tensor " + ir.Quote(name) + " with its guard is " + FormatBytes(b.Span()) + ", over the " + FormatBytes(p.Cut) + " a GPU buffer holds"})
		}
	}
	if len(e.Violation) > 0 {
		return e
	}
	return nil
}

// setGPU fills the record's WebGPU fields. Under tensor binding the
// arena is cut at multiples of cut; each piece becomes a GPU buffer (its
// size rounded up to 4, which stays within cut, a multiple of 4), and
// every tensor with bytes, or a view of one, gets its buffer and offset.
func (plan *Plan) setGPU(g *GPU, cut int64) {
	plan.Binding = g.Binding
	l := g.Limits
	plan.Limits = &l
	if g.Binding != BindTensor || cut <= 0 {
		return
	}
	for off := int64(0); off < plan.ArenaSize; off += cut {
		plan.Buffers = append(plan.Buffers, GPUBuffer{Offset: off, Size: alignUp(min(cut, plan.ArenaSize-off), 4)})
	}
	slots := make([]BufferSlot, len(plan.Tensors))
	for i := range plan.Tensors {
		t := &plan.Tensors[i]
		if t.Placed() && t.Size+t.Guard > 0 {
			k := int(t.Offset / cut)
			slots[i] = BufferSlot{Buffer: k, BufferOffset: t.Offset - int64(k)*cut}
			t.BufferSlot = &slots[i]
		}
	}
	byName := make(map[string]int, len(plan.Tensors))
	for i := range plan.Tensors {
		byName[plan.Tensors[i].Name] = i
	}
	for i := range plan.Tensors {
		t := &plan.Tensors[i]
		if t.IsView() && !t.Skipped {
			if r := plan.Tensors[byName[t.Root]].BufferSlot; r != nil {
				slots[i] = BufferSlot{Buffer: r.Buffer, BufferOffset: r.BufferOffset + t.ViewOffset}
				t.BufferSlot = &slots[i]
			}
		}
	}
}
