package planner

import (
	"fmt"
	"math/rand/v2"
)

// Generate returns a synthetic training-step problem of n buffers, the
// same for the same seed: a stack of transformer layers (attention and
// MLP activations, residual skips), weights and optimizer state live for
// the whole step, activations saved by the forward pass until their layer's
// backward pass, short-lived gradients, and an optimizer tail that reads
// every weight gradient at the end. Benchmarks use it to measure the
// strategies at sizes no published instance reaches.
func Generate(n int, seed uint64) *Problem {
	rng := rand.New(rand.NewPCG(seed, seed^0x5eed))
	g := &generator{p: &Problem{Name: fmt.Sprintf("generated-%d", n), Alignment: 64, Options: Options{Alignment: 64}}}
	const elem = 2 // bf16 activations
	batch := int64(1 << rng.IntN(3))
	seq := int64(256 << rng.IntN(3))
	heads := int64(8 << rng.IntN(2))
	for layer := 0; len(g.p.Buffers) < n; layer++ {
		// Widths drift a little from layer to layer, as in pruned or
		// mixed-width models, so sizes are not all equal.
		d := int64(512+64*rng.IntN(24)) * 2
		tok := batch * seq
		act := tok * d * elem
		l := fmt.Sprintf("l%d.", layer)
		// Weights and Adam moments sit in one flat buffer each per layer,
		// as FSDP-style trainers keep them, sharded genShards ways so that
		// activations, not weights, set the peak.
		params := 12*d*d + 2*d
		g.add(l+"params", params*elem/genShards, 0, -1, KindParam)
		g.add(l+"adam", params*8/genShards, 0, -1, KindConstant)
		// Forward. Saved tensors live until this layer's backward, which
		// comes after every later layer's forward: the usual training
		// pyramid.
		in := g.last
		norm := g.act(l+"norm1", act)
		qkv := g.act(l+"qkv", 3*act)
		scores := g.act(l+"scores", batch*heads*seq*seq*elem)
		probs := g.act(l+"probs", batch*heads*seq*seq*elem)
		attn := g.act(l+"attn", act)
		g.use(scores) // softmax reads scores once
		proj := g.act(l+"proj", act)
		res1 := g.act(l+"res1", act)
		g.use(in) // the skip connection ends here
		norm2 := g.act(l+"norm2", act)
		h := g.act(l+"mlp.h", 4*act)
		gelu := g.act(l+"mlp.gelu", 4*act)
		out := g.act(l+"mlp.out", act)
		res2 := g.act(l+"res2", act)
		g.use(res1)
		g.last = res2
		g.saved = append(g.saved, []int{norm, qkv, probs, attn, proj, norm2, h, gelu, out})
	}
	// Backward, last layer first: each layer's saved tensors die as its
	// gradients are made; weight gradients wait for the optimizer.
	var grads []int
	for k := len(g.saved) - 1; k >= 0 && len(g.p.Buffers) < n; k-- {
		for j, s := range g.saved[k] {
			b := &g.p.Buffers[s]
			g.add(b.Name+".grad", b.Size, g.step, g.step+1+j%3, KindActivation)
			g.step++
			b.Death = g.step
			if j%3 == 0 {
				grads = append(grads, g.add(fmt.Sprintf("%s.wgrad%d", b.Name, j), b.Size/2, g.step, -2, KindActivation))
			}
		}
	}
	// Optimizer tail: one update per weight gradient, each with a scratch.
	for _, gi := range grads {
		if len(g.p.Buffers) >= n {
			break
		}
		g.step++
		g.add(g.p.Buffers[gi].Name+".upd", g.p.Buffers[gi].Size, g.step, g.step, KindActivation)
		g.p.Buffers[gi].Death = g.step
	}
	g.step++
	if len(g.p.Buffers) > n {
		g.p.Buffers = g.p.Buffers[:n]
		g.p.Tensors = g.p.Tensors[:n]
	}
	for i := range g.p.Buffers {
		b := &g.p.Buffers[i]
		switch {
		case b.Death == -1: // whole step
			b.Death = g.step
		case b.Death == -2 || b.Death < b.Birth: // cut off by n
			b.Death = g.step
		}
		t := &g.p.Tensors[i]
		t.Birth, t.Death = b.Birth, b.Death
	}
	g.p.Steps = g.step + 1
	return g.p
}

// genShards is how many ways Generate's weights are sharded.
const genShards = 8

type generator struct {
	p     *Problem
	step  int
	last  int     // the residual stream's current tensor, -1 at first
	saved [][]int // per layer, tensors kept for the backward pass
}

func (g *generator) add(name string, size int64, birth, death int, kind Kind) int {
	i := len(g.p.Buffers)
	g.p.Buffers = append(g.p.Buffers, Buffer{Name: name, Size: size, Birth: birth, Death: death, Align: 64, Tensor: i})
	g.p.Tensors = append(g.p.Tensors, TensorInfo{Name: name, Op: "generated", Kind: kind, Size: size, Buffer: i, Root: -1})
	return i
}

// act adds an activation born at the next step. Its death is set when it
// is used (use) or saved; until then it lives to the next step.
func (g *generator) act(name string, size int64) int {
	g.step++
	return g.add(name, size, g.step, g.step+1, KindActivation)
}

// use extends a tensor's life to the current step.
func (g *generator) use(i int) {
	if i > 0 && i < len(g.p.Buffers) {
		g.p.Buffers[i].Death = max(g.p.Buffers[i].Death, g.step)
	}
}

// GenerateRandom returns n buffers with random lives and sizes, the same
// for the same seed: each is born at a step drawn from [0, n), lives 1 to
// 50 steps and holds 1 byte to 64 KiB. Unlike Generate's, no structure
// lets a greedy order reach the lower bound, so every strategy and
// auto's whole portfolio run: it measures the worst case of their time.
func GenerateRandom(n int, seed uint64) *Problem {
	rng := rand.New(rand.NewPCG(seed, seed^0x7a4d))
	p := &Problem{Name: fmt.Sprintf("random-%d", n), Alignment: 1, Options: Options{Alignment: 1}, Steps: n + 50}
	p.Buffers = make([]Buffer, n)
	p.Tensors = make([]TensorInfo, n)
	for i := range n {
		birth := rng.IntN(n)
		size := 1 + rng.Int64N(64<<10-1)
		name := fmt.Sprint("r", i)
		p.Buffers[i] = Buffer{Name: name, Size: size, Birth: birth, Death: birth + rng.IntN(50), Align: 1, Tensor: i}
		p.Tensors[i] = TensorInfo{Name: name, Op: "generated", Kind: KindActivation, Size: size, Buffer: i, Root: -1, Birth: birth, Death: p.Buffers[i].Death}
	}
	return p
}
