package planner

import (
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
)

// The plan's binary form carries a plan record from the planner worker to
// the viewer. Decoding a 62,000-tensor record from JSON took 1.6 s in the
// browser's wasm, more than planning it; this form takes a small part of
// that. It is private to one build of memplan (the worker and viewer come
// from the same commit), so it has a magic number but no compatibility
// promise: plan records that people keep are JSON.
var binaryMagic = []byte("MPB2")

// AppendBinary appends the plan's binary form to b.
func (p *Plan) AppendBinary(b []byte) ([]byte, error) {
	// Room for the whole record at once, as AppendTensorsJSON makes.
	need := 256 + 24*len(p.Options.Symbols)
	for _, s := range p.Schedule {
		need += len(s) + 2
	}
	for _, r := range p.Reads {
		need += 2 + 3*len(r)
	}
	for i := range p.Tensors {
		t := &p.Tensors[i]
		need += 48 + len(t.Name) + len(t.Op) + len(t.Node) + len(t.Phase) + len(t.Kind) + len(t.DType) + len(t.Reuses) + len(t.Root) + 10*len(t.Shape)
	}
	w := binWriter{b: append(slices.Grow(b, need), binaryMagic...)}
	w.str(p.Format)
	w.str(p.Name)
	w.ints(p.ArenaSize, p.LowerBound, p.AlignedLowerBound, p.TotalUnshared, p.Saved)
	w.uint(math.Float64bits(p.Fragmentation))
	w.ints(p.Alignment)
	w.str(p.Strategy)
	w.bool(p.Optimal)
	w.bool(p.OptimalBySearch)
	w.options(&p.Options)
	w.ints(int64(p.Steps))
	w.strs(p.Schedule)
	w.strs(p.Phases)
	w.reads(p.Reads)
	w.uint(uint64(len(p.Tensors)))
	for i := range p.Tensors {
		t := &p.Tensors[i]
		w.str(t.Name)
		w.str(t.Op)
		w.str(t.Node)
		w.str(t.Phase)
		w.str(string(t.Kind))
		w.uint(uint64(len(t.Shape)))
		w.ints(t.Shape...)
		w.str(t.DType)
		w.ints(t.Size, t.Offset, t.Guard, int64(t.Birth), int64(t.Death))
		w.str(t.Reuses)
		w.str(t.Root)
		w.ints(t.ViewOffset, t.Alignment)
		w.bool(t.Skipped)
	}
	w.strs(p.IO.Inputs)
	w.strs(p.IO.Params)
	w.strs(p.IO.Constants)
	w.strs(p.IO.Outputs)
	names := make([]string, 0, len(p.Symbols))
	for k := range p.Symbols {
		names = append(names, k)
	}
	slices.Sort(names)
	w.uint(uint64(len(names)))
	for _, k := range names {
		w.str(k)
		w.ints(p.Symbols[k])
	}
	w.strs(p.Notes)
	w.strs(p.PlacementOrder)
	w.str(p.PlacementRule)
	w.str(p.Fingerprint)
	w.gpu(p)
	return w.b, nil
}

// DecodeBinary reads a plan's binary form. Like DecodePlan it does not
// prove the plan valid.
func DecodeBinary(data []byte) (*Plan, error) {
	if len(data) < len(binaryMagic) || string(data[:len(binaryMagic)]) != string(binaryMagic) {
		return nil, errors.New("not a binary plan record")
	}
	// One copy of the record as a string: every string in the plan is a
	// slice of it, and every shape a slice of one array, rather than a few
	// hundred thousand small allocations, which in the browser's wasm
	// cost seven times what the decoding itself does.
	r := binReader{b: data[len(binaryMagic):], text: string(data[len(binaryMagic):])}
	p := &Plan{}
	p.Format = r.str()
	p.Name = r.str()
	p.ArenaSize, p.LowerBound, p.AlignedLowerBound, p.TotalUnshared, p.Saved = r.int(), r.int(), r.int(), r.int(), r.int()
	p.Fragmentation = math.Float64frombits(r.uint())
	p.Alignment = r.int()
	p.Strategy = r.str()
	p.Optimal = r.bool()
	p.OptimalBySearch = r.bool()
	r.options(&p.Options)
	p.Steps = int(r.int())
	p.Schedule = r.strs()
	p.Phases = r.strs()
	p.Reads = r.reads()
	if n := r.count(); r.err == nil {
		p.Tensors = make([]PlanTensor, n)
		for i := range p.Tensors {
			t := &p.Tensors[i]
			t.Name, t.Op, t.Node, t.Phase, t.Kind = r.str(), r.str(), r.str(), r.str(), Kind(r.str())
			t.Shape = r.shape()
			t.DType = r.str()
			t.Size, t.Offset, t.Guard, t.Birth, t.Death = r.int(), r.int(), r.int(), int(r.int()), int(r.int())
			t.Reuses, t.Root = r.str(), r.str()
			t.ViewOffset, t.Alignment = r.int(), r.int()
			t.Skipped = r.bool()
			if r.err != nil {
				break
			}
		}
	}
	p.IO.Inputs, p.IO.Params, p.IO.Constants, p.IO.Outputs = r.strs(), r.strs(), r.strs(), r.strs()
	if n := r.count(); r.err == nil {
		p.Symbols = make(map[string]int64, n)
		for range n {
			k := r.str()
			p.Symbols[k] = r.int()
		}
	}
	p.Notes = r.strs()
	p.PlacementOrder = r.strs()
	p.PlacementRule = r.str()
	p.Fingerprint = r.str()
	r.gpu(p)
	if r.err == nil && len(r.b) > 0 {
		r.err = errors.New("data after the record")
	}
	if r.err != nil {
		return nil, fmt.Errorf("binary plan record: %v", r.err)
	}
	return p, nil
}

type binWriter struct{ b []byte }

func (w *binWriter) uint(v uint64) { w.b = binary.AppendUvarint(w.b, v) }

func (w *binWriter) ints(vs ...int64) {
	for _, v := range vs {
		w.b = binary.AppendVarint(w.b, v)
	}
}

func (w *binWriter) bool(v bool) {
	if v {
		w.b = append(w.b, 1)
	} else {
		w.b = append(w.b, 0)
	}
}

func (w *binWriter) str(s string) {
	w.uint(uint64(len(s)))
	w.b = append(w.b, s...)
}

// strs writes a list, keeping nil apart from empty: records leave some
// lists out (omitempty) and keep others as [].
func (w *binWriter) strs(ss []string) {
	if ss == nil {
		w.uint(0)
		return
	}
	w.uint(uint64(len(ss)) + 1)
	for _, s := range ss {
		w.str(s)
	}
}

// reads writes each step's read list, keeping nil (no ops) apart from
// an empty schedule.
func (w *binWriter) reads(rs [][]int) {
	if rs == nil {
		w.uint(0)
		return
	}
	w.uint(uint64(len(rs)) + 1)
	for _, r := range rs {
		w.uint(uint64(len(r)))
		for _, t := range r {
			w.uint(uint64(t))
		}
	}
}

// binReader reads what binWriter wrote; the first error sticks, and
// every read after it returns zero values.
type binReader struct {
	b    []byte
	text string  // the bytes b started as, as a string for str to slice
	dims []int64 // room for shapes still unused
	err  error
}

func (r *binReader) fail(msg string) {
	if r.err == nil {
		r.err = errors.New(msg)
	}
	r.b = nil
}

func (r *binReader) reads() [][]int {
	n := r.uint()
	if n == 0 || r.err != nil {
		return nil
	}
	rs := make([][]int, 0, min(n-1, uint64(len(r.b))))
	for range n - 1 {
		k := r.count()
		if r.err != nil {
			return nil
		}
		row := make([]int, k)
		for j := range row {
			row[j] = int(r.uint())
		}
		rs = append(rs, row)
	}
	return rs
}

func (r *binReader) uint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail("truncated or overlong number")
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *binReader) int() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.fail("truncated or overlong number")
		return 0
	}
	r.b = r.b[n:]
	return v
}

// count reads a length, refusing one longer than the bytes left could
// hold (each element takes at least one byte), so a corrupt count never
// makes a huge allocation.
func (r *binReader) count() int {
	n := r.uint()
	if n > uint64(len(r.b)) {
		r.fail("a length runs past the end")
		return 0
	}
	return int(n)
}

func (r *binReader) bool() bool {
	if len(r.b) == 0 {
		r.fail("truncated")
		return false
	}
	v := r.b[0]
	r.b = r.b[1:]
	return v != 0
}

func (r *binReader) str() string {
	n := r.uint()
	if n > uint64(len(r.b)) {
		r.fail("a string runs past the end")
		return ""
	}
	at := len(r.text) - len(r.b)
	r.b = r.b[n:]
	return r.text[at : at+int(n)]
}

// shape reads a tensor's shape into the shared room for shapes: a
// 62,000-tensor plan takes a few arrays instead of 62,000.
func (r *binReader) shape() []int64 {
	n := r.count()
	if r.err != nil {
		return nil
	}
	if n == 0 {
		return []int64{} // a scalar's shape: empty, not absent
	}
	if len(r.dims)+n > cap(r.dims) {
		r.dims = make([]int64, 0, max(n, 4096))
	}
	from := len(r.dims)
	for range n {
		r.dims = append(r.dims, r.int())
	}
	return r.dims[from:len(r.dims):len(r.dims)]
}

func (r *binReader) strs() []string {
	n := r.uint()
	if n == 0 || r.err != nil {
		return nil
	}
	if n-1 > uint64(len(r.b)) {
		r.fail("a list runs past the end")
		return nil
	}
	ss := make([]string, n-1)
	for i := range ss {
		ss[i] = r.str()
	}
	return ss
}

// gpu writes the WebGPU fields: binding, limits, buffers and, for each
// tensor, its buffer + 1 (0 for none) and buffer offset.
func (w *binWriter) gpu(p *Plan) {
	w.str(p.Binding)
	w.bool(p.Limits != nil)
	if l := p.Limits; l != nil {
		w.str(l.Profile)
		w.ints(l.MaxStorageBufferBindingSize, l.MaxBufferSize, l.MinStorageBufferOffsetAlignment)
	}
	w.bool(p.Buffers != nil)
	w.uint(uint64(len(p.Buffers)))
	for _, b := range p.Buffers {
		w.ints(b.Offset, b.Size)
	}
	if p.Buffers == nil {
		return
	}
	for i := range p.Tensors {
		if s := p.Tensors[i].BufferSlot; s != nil {
			w.ints(int64(s.Buffer)+1, s.BufferOffset)
		} else {
			w.ints(0)
		}
	}
}

func (r *binReader) gpu(p *Plan) {
	p.Binding = r.str()
	if r.bool() {
		l := &Limits{Profile: r.str()}
		l.MaxStorageBufferBindingSize, l.MaxBufferSize, l.MinStorageBufferOffsetAlignment = r.int(), r.int(), r.int()
		p.Limits = l
	}
	has := r.bool()
	if n := r.count(); r.err == nil && has {
		p.Buffers = make([]GPUBuffer, n)
		for k := range p.Buffers {
			p.Buffers[k] = GPUBuffer{Offset: r.int(), Size: r.int()}
		}
	}
	if !has || r.err != nil {
		return
	}
	slots := make([]BufferSlot, len(p.Tensors))
	for i := range p.Tensors {
		if k := r.int(); k > 0 && k <= int64(len(p.Buffers)) {
			slots[i] = BufferSlot{Buffer: int(k - 1), BufferOffset: r.int()}
			p.Tensors[i].BufferSlot = &slots[i]
		} else if k != 0 {
			r.fail("a tensor names a buffer the record does not have")
		}
	}
}

// options writes the planning options a record carries: the fields
// Options writes in JSON (SharedWeights and GPU are the record's own
// fields), symbols in key order.
func (w *binWriter) options(o *Options) {
	w.ints(o.Alignment, o.Guard)
	for _, v := range []bool{o.F32Uniform, o.NoReuse, o.SkipParams, o.SkipInputs, o.SkipConstants} {
		w.bool(v)
	}
	if o.Symbols == nil {
		w.uint(0)
		return
	}
	w.uint(uint64(len(o.Symbols)) + 1) // 0 is nil, 1 an empty map
	for _, k := range slices.Sorted(maps.Keys(o.Symbols)) {
		w.str(k)
		w.ints(o.Symbols[k])
	}
}

func (r *binReader) options(o *Options) {
	o.Alignment, o.Guard = r.int(), r.int()
	for _, v := range []*bool{&o.F32Uniform, &o.NoReuse, &o.SkipParams, &o.SkipInputs, &o.SkipConstants} {
		*v = r.bool()
	}
	n := r.count()
	if n == 0 || r.err != nil {
		return
	}
	o.Symbols = make(map[string]int64, n-1)
	for range n - 1 {
		k := r.str()
		o.Symbols[k] = r.int()
	}
}
