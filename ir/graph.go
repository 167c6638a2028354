package ir

import (
	"fmt"
	"math"
	"strconv"
)

// Format is the value of the "format" field of a graph file.
const Format = "memplan.graph/v1"

// Ops with a meaning to the planner. Any other op name is an ordinary
// compute op whose outputs own fresh bytes.
const (
	OpInput     = "input"
	OpParam     = "param"
	OpConstant  = "constant"
	OpReshape   = "reshape"
	OpCast      = "cast"
	OpNarrow    = "narrow"
	OpAttention = "attention"
	OpCustom    = "custom"
)

// Graph is a decoded, validated compute graph. Nodes are in schedule order:
// Nodes[i] runs at step i. Every tensor name is unique across the graph.
type Graph struct {
	Name string
	// File is the name of the file it was decoded from, for errors that
	// later stages locate in it.
	File    string
	Symbols map[string]int64 // default symbol values from the file
	Nodes   []Node
	Outputs []string // names of graph-output tensors
	// Notes are facts a decoder wants the user to know (a re-sorted
	// schedule, subgraphs not planned); they are not errors.
	Notes []string
}

// Node is one op of the schedule.
type Node struct {
	Name    string
	Op      string
	Inputs  []string // tensor names read, in order
	Outputs []Tensor // at least one; a single-output node's tensor has the node's name

	// Alias says whether the node's single output borrows its first
	// input's bytes instead of owning new ones. Decoders set it: reshape,
	// same-dtype cast and axis-0 narrow in graph JSON; Reshape, Flatten,
	// Squeeze, Unsqueeze, Identity and axis-0 Slice in ONNX.
	Alias Alias

	// Narrow (and ONNX Slice on axis 0): elements [Start, Start+Len) of Axis.
	Axis, Start, Len int64
	// Cast: the target dtype (equal to the output's dtype).
	To DType
	// Custom: the custom op's own name, such as "onnx.NonMaxSuppression".
	// The inputs of custom ops named "onnx.*", and everything they were
	// computed from, stay alive to the end of the run (REFERENCE R1).
	Custom string
	// Phase names the part of the run the node belongs to, such as
	// "prefill" or "decode" in streaming inference; "" for none. The plan
	// reports each phase's steps and peak.
	Phase string

	// Path locates the node in its source for error messages, for example
	// `nodes[3]` in graph JSON or `graph.node[12]` in ONNX.
	Path string
}

// Alias is how a node's output relates to its first input's bytes.
type Alias uint8

const (
	// NoAlias: the output owns new bytes.
	NoAlias Alias = iota
	// AliasWhole: the output is the input's bytes from offset 0 (reshape,
	// same-dtype cast).
	AliasWhole
	// AliasNarrow: the output is rows [Start, Start+Len) of axis 0 of the
	// input, at byte offset Start * prod(input dims[1:]) * element bytes.
	AliasNarrow
)

// Tensor is one value produced by a node.
type Tensor struct {
	Name  string
	Shape []Dim
	DType DType
	// Pin keeps the tensor alive longer than its last read; see Pin.
	Pin Pin
	// Shares names an input of the node whose bytes this output is, from
	// offset 0: a runtime that writes a KV cache's present into its past's
	// buffer makes present such a view. Empty: the output owns its bytes
	// (or, for a single-output node, follows the node's Alias).
	Shares string
}

// Pin extends a tensor's liveness. The zero Pin does nothing.
type Pin struct {
	// Until is the last step the tensor must stay alive (inclusive); PinEnd
	// means to the end of the run. Zero means not pinned.
	Until int
	// Producers extends the same pin to every tensor this one was computed
	// from, transitively (through views and compute ops alike).
	Producers bool
}

// PinEnd as Pin.Until keeps a tensor alive past the last step, like a graph output.
const PinEnd = math.MaxInt32

// Pinned reports whether the pin extends liveness at all.
func (p Pin) Pinned() bool { return p.Until != 0 }

// Dim is one dimension: a fixed size, or a symbol bound at planning time.
type Dim struct {
	Value  int64
	Symbol string // non-empty: symbolic, Value unused
}

// Int is a fixed dimension.
func Int(v int64) Dim { return Dim{Value: v} }

// Sym is a symbolic dimension.
func Sym(name string) Dim { return Dim{Symbol: name} }

func (d Dim) String() string {
	if d.Symbol != "" {
		return d.Symbol
	}
	return strconv.FormatInt(d.Value, 10)
}

// MarshalJSON writes a number or a symbol name, as the graph format does.
func (d Dim) MarshalJSON() ([]byte, error) {
	if d.Symbol != "" {
		return AppendJSONString(nil, d.Symbol), nil
	}
	return []byte(strconv.FormatInt(d.Value, 10)), nil
}

// Bind resolves symbolic dims with the given values (falling back to the
// graph's defaults when bind lacks one) and returns the concrete shape.
func (g *Graph) Bind(shape []Dim, bind map[string]int64) ([]int64, error) {
	out := make([]int64, len(shape))
	for i, d := range shape {
		if d.Symbol == "" {
			out[i] = d.Value
			continue
		}
		v, ok := bind[d.Symbol]
		if !ok {
			v, ok = g.Symbols[d.Symbol]
		}
		if !ok {
			return nil, fmt.Errorf("unbound symbol %s", Quote(d.Symbol))
		}
		if v < 0 {
			return nil, fmt.Errorf("symbol %s is %d, want >= 0", Quote(d.Symbol), v)
		}
		out[i] = v
	}
	return out, nil
}
