package planner

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"reflect"
	"strings"
	"testing"

	"memplan/ir"
)

// TestRandomGraphsTensorBinding runs the random graphs of the property
// test under tensor binding, with limits scaled down to the graphs' sizes
// so that the arena is cut many times: every strategy's plan passes
// Verify, and, checked here apart from Verify, every tensor with bytes
// lies inside one GPU buffer at an offset aligned to the device's.
func TestRandomGraphsTensorBinding(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	count := 600
	if testing.Short() {
		count = 100
	}
	cutsMet := 0
	for i := range count {
		g, bind := randomGraph(r, i)
		opts := randomOptions(r, bind)
		// The largest span decides the smallest buffer that holds one.
		p, err := Analyze(g, opts)
		if err != nil {
			t.Fatal(err)
		}
		var largest int64 = 4
		for _, b := range p.Buffers {
			largest = max(largest, b.Span())
		}
		align := int64(4) << r.IntN(7) // 4 .. 256
		buffer := alignUp(largest, max(align, p.Alignment)) * int64(1+r.IntN(3))
		limits := Limits{Profile: "custom", MaxStorageBufferBindingSize: alignUp(largest, 4), MaxBufferSize: buffer, MinStorageBufferOffsetAlignment: align}
		opts.GPU = &GPU{Binding: BindTensor, Limits: limits}
		for _, strategy := range StrategyNames() {
			if strategy == "exact" && i%10 != 0 {
				continue // a search; sampled to keep the test short
			}
			plan := planGraph(t, g, opts, strategy)
			if len(plan.Buffers) > 1 {
				cutsMet++
			}
			checkTensorBinding(t, plan, strategy)
		}
	}
	if cutsMet < count {
		t.Errorf("only %d plans had more than one GPU buffer: the limits are too loose to test the cuts", cutsMet)
	}
}

// checkTensorBinding checks a tensor-binding plan's buffers and slots
// with its own arithmetic.
func checkTensorBinding(t *testing.T, plan *Plan, strategy string) {
	t.Helper()
	l := plan.Limits
	if plan.Binding != BindTensor || l == nil {
		t.Fatalf("%s/%s: binding %q limits %v", plan.Name, strategy, plan.Binding, l)
	}
	for i := range plan.Tensors {
		tn := &plan.Tensors[i]
		if !tn.Placed() || tn.Size+tn.Guard == 0 {
			continue
		}
		if tn.Offset%l.MinStorageBufferOffsetAlignment != 0 {
			t.Fatalf("%s/%s: %s at %d, not aligned to %d", plan.Name, strategy, tn.Name, tn.Offset, l.MinStorageBufferOffsetAlignment)
		}
		var in []int
		for k, b := range plan.Buffers {
			if b.Offset <= tn.Offset && tn.Offset+tn.Size+tn.Guard <= b.Offset+b.Size {
				in = append(in, k)
			}
		}
		if len(in) != 1 || tn.BufferSlot == nil || tn.Buffer != in[0] {
			t.Fatalf("%s/%s: %s at [%d, %d) lies in buffers %v, names %v; buffers %v", plan.Name, strategy, tn.Name,
				tn.Offset, tn.Offset+tn.Size+tn.Guard, in, tn.BufferSlot, plan.Buffers)
		}
	}
	for k, b := range plan.Buffers {
		if b.Size > l.MaxBufferSize {
			t.Fatalf("%s/%s: buffer %d is %d bytes, over %d", plan.Name, strategy, k, b.Size, l.MaxBufferSize)
		}
	}
}

// TestTensorTooLarge: under tensor binding a tensor larger than one
// binding is an error that names it, its size and the limit, and every
// other such tensor too.
func TestTensorTooLarge(t *testing.T) {
	src := `{"format": "memplan.graph/v1", "name": "big", "symbols": {"seq": 8192},
	  "nodes": [
	    {"name": "x", "op": "input", "shape": ["seq", 1024], "dtype": "f32"},
	    {"name": "scores", "op": "matmul", "inputs": ["x", "x"], "shape": ["seq", "seq"], "dtype": "f32"},
	    {"name": "y", "op": "softmax", "inputs": ["scores"], "shape": ["seq", "seq"], "dtype": "f32"}
	  ], "outputs": ["y"]}`
	g, err := ir.DecodeGraph("big.json", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	gpu, _ := ResolveGPU("default", "", "tensor")
	opts := DefaultOptions()
	opts.GPU = gpu
	_, err = PlanSource(context.Background(), &ir.Source{Graph: g}, opts, "", PlaceOptions{})
	var le *LimitError
	if !errors.As(err, &le) {
		t.Fatalf("got %v, want a *LimitError", err)
	}
	if len(le.Violation) != 2 || le.Violation[0].Tensor != "scores" || le.Violation[0].Size != 256<<20 {
		t.Fatalf("violations %+v, want scores and y at 256 MiB", le.Violation)
	}
	for _, want := range []string{`"scores"`, `"y"`, "268435456 bytes", "maxStorageBufferBindingSize"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %s", err, want)
		}
	}
}

// tensorPlan plans the transformer example under tensor binding with
// limits small enough for several GPU buffers.
func tensorPlan(t *testing.T) *Plan {
	t.Helper()
	data, err := os.ReadFile("../examples/transformer.json")
	if err != nil {
		t.Fatal(err)
	}
	g, err := ir.DecodeGraph("transformer.json", data)
	if err != nil {
		t.Fatal(err)
	}
	gpu, err := ResolveGPU("default", "binding=8MiB,buffer=16MiB", "tensor")
	if err != nil {
		t.Fatal(err)
	}
	opts := DefaultOptions()
	opts.F32Uniform, opts.GPU = true, gpu
	plan := planGraph(t, g, opts, "auto")
	if len(plan.Buffers) < 2 {
		t.Fatalf("%d GPU buffers, want several", len(plan.Buffers))
	}
	return plan
}

// TestVerifyTensorBinding: Verify refuses a tensor-binding record whose
// buffers or slots are wrong, each for its own reason, and the
// fingerprint changes with them.
func TestVerifyTensorBinding(t *testing.T) {
	first := func(p *Plan) *PlanTensor {
		for i := range p.Tensors {
			if s := p.Tensors[i].BufferSlot; s != nil && !p.Tensors[i].IsView() {
				return &p.Tensors[i]
			}
		}
		t.Fatal("no tensor has a slot")
		return nil
	}
	tests := []struct {
		name   string
		tamper func(p *Plan)
		want   string
	}{
		{"buffer offset", func(p *Plan) { first(p).BufferOffset += 256 }, "buffer_offset is not its offset"},
		{"misaligned slot", func(p *Plan) { first(p).BufferOffset++; first(p).Offset++ }, "not a multiple"},
		{"wrong buffer", func(p *Plan) { s := first(p); s.Buffer = (s.Buffer + 1) % len(p.Buffers) }, "straddle or leave"},
		{"no slot", func(p *Plan) { first(p).BufferSlot = nil }, "names no GPU buffer"},
		{"buffer too large", func(p *Plan) { p.Buffers[0].Size = p.Limits.MaxBufferSize + 4 }, "up to maxBufferSize"},
		{"gap between buffers", func(p *Plan) { p.Buffers[1].Offset += 256 }, "the end of the one before"},
		{"buffers short", func(p *Plan) { p.Buffers = p.Buffers[:len(p.Buffers)-1] }, "short of the arena"},
		{"no limits", func(p *Plan) { p.Limits = nil }, "without limits"},
		{"unknown binding", func(p *Plan) { p.Binding = "texture" }, "want arena or tensor"},
		{"slots under arena binding", func(p *Plan) { p.Binding, p.Buffers = BindArena, nil }, "names a GPU buffer it cannot have"},
	}
	for _, tt := range tests {
		plan := tensorPlan(t)
		fp := plan.Fingerprint
		tt.tamper(plan)
		err := Verify(plan)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Verify = %v, want an error with %q", tt.name, err, tt.want)
		}
		if tt.name != "no limits" && plan.ComputeFingerprint() == fp {
			t.Errorf("%s: the fingerprint does not change", tt.name)
		}
	}
}

// TestBinaryRoundTripTensorBinding: the binary form carries the binding,
// limits, buffers and every tensor's slot.
func TestBinaryRoundTripTensorBinding(t *testing.T) {
	plan := tensorPlan(t)
	b, err := plan.AppendBinary(nil)
	if err != nil {
		t.Fatal(err)
	}
	back, err := DecodeBinary(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(plan, back) {
		t.Fatalf("the plan changed through its binary form")
	}
	if err := Verify(back); err != nil {
		t.Fatal(err)
	}
}
