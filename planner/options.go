package planner

import (
	"math"

	"memplan/ir"
)

// Options control how a graph lowers to a Problem.
type Options struct {
	// Alignment of every offset, a power of two. Zero means the input's
	// default (DefaultAlignmentOf): 64 bytes for graphs, 1 for buffer
	// lists (abstract units).
	Alignment int64 `json:"alignment"`
	// F32Uniform stores every tensor as f32 (4 bytes an element, whatever
	// its dtype), as a WebGPU backend does.
	F32Uniform bool `json:"f32_uniform"`
	// NoReuse gives every buffer its own bytes: the baseline.
	NoReuse bool `json:"no_reuse"`
	// Skip* leave those boundary tensors out of the arena.
	SkipParams    bool `json:"skip_params"`
	SkipInputs    bool `json:"skip_inputs"`
	SkipConstants bool `json:"skip_constants"`
	// Guard is the tail guard after input, param and constant buffers.
	// Negative means the default, max(Alignment, 128).
	Guard int64 `json:"guard"`
	// Symbols bind symbolic dimensions, overriding the graph's defaults.
	Symbols map[string]int64 `json:"symbols,omitempty"`
	// SharedWeights, when set, gives each param of the same name the
	// forward plan's offset (training: the backward pass reads the
	// forward pass's weights in place).
	SharedWeights *WeightLayout `json:"-"`
	// GPU, when set, plans for a WebGPU device's limits under a binding
	// model (ResolveGPU). The plan record carries it as its own fields,
	// binding and limits.
	GPU *GPU `json:"-"`
}

// StoredDType is the dtype a tensor of dtype dt takes in the arena: f32
// in f32-uniform mode, whatever dt is (a 4-bit tensor too: a WebGPU
// backend storing everything as f32 unpacks it), else dt itself. Every
// size the planner gives or checks goes through here.
func (o Options) StoredDType(dt ir.DType) ir.DType {
	if o.F32Uniform && dt.Valid() {
		return ir.F32
	}
	return dt
}

// TensorBytes is the arena bytes of a tensor of shape and dtype dt under
// these options.
func (o Options) TensorBytes(shape []int64, dt ir.DType) (int64, error) {
	return ir.TensorBytes(shape, o.StoredDType(dt))
}

// key is the options as a record writes them, for comparing two.
func (o Options) key() string {
	b, _ := ir.EncodeJSON(o, "") // plain fields and a map of ints: cannot fail
	return string(b)
}

// DefaultOptions are the options the CLI and the viewer start from.
func DefaultOptions() Options { return Options{Guard: -1} }

// DefaultGraphAlignment is the alignment of graph buffers unless set.
const DefaultGraphAlignment = 64

// DefaultGuard is the guard used when Options.Guard is negative.
func DefaultGuard(alignment int64) int64 { return max(alignment, 128) }

// WebGPUBindingLimit is WebGPU's default maxStorageBufferBindingSize: the
// budget an arena must fit in f32-uniform mode.
const WebGPUBindingLimit = 128 << 20

// WeightLayout is the offset and size of each param of a forward plan.
// File names the forward graph's file, for messages, when known.
type WeightLayout struct {
	Slots map[string]WeightSlot
	File  string
}

// of names the forward plan's file in a message: " of fwd.json", or "".
func (w *WeightLayout) of() string {
	if w.File == "" {
		return ""
	}
	return " of " + w.File
}

// WeightSlot is where one weight lives.
type WeightSlot struct {
	Offset, Size, Guard int64
}

// MaxInputBytes is the largest file a memory limit lets memplan read.
// No input takes less than ir.MinExpansion times its size once decoded
// and planned, so a larger one is refused before a byte of it is read.
func MaxInputBytes(memoryLimit int64) int64 { return memoryLimit / ir.MinExpansion }

// CheckInput refuses name, a file of size bytes, when memoryLimit lets
// memplan read none that large: before a byte of it is read. The command
// line and the page say it in the same words.
func CheckInput(name string, size, memoryLimit int64) error {
	if size <= MaxInputBytes(memoryLimit) {
		return nil
	}
	return &ir.MemoryError{File: name, What: "reading " + FormatBytes(size), Need: InputMemory(size), Limit: memoryLimit}
}

// StreamTooLarge is the error for name, a stream of unknown size that
// gave more than MaxInputBytes(memoryLimit) before it was cut off.
func StreamTooLarge(name string, memoryLimit int64) error {
	most := MaxInputBytes(memoryLimit)
	return &ir.MemoryError{File: name, What: "reading more than " + FormatBytes(most), Need: InputMemory(most), Limit: memoryLimit, AtLeast: true}
}

// InputMemory is the least memory an input of size bytes takes decoded
// and planned (saturating, for sizes no file has).
func InputMemory(size int64) int64 {
	if size > math.MaxInt64/ir.MinExpansion {
		return math.MaxInt64
	}
	return size * ir.MinExpansion
}

// Memory limits for decoding and planning one input (ir.DecodeOptions's
// MaxMemory): inputs that would need more are refused up front with an
// *ir.MemoryError. The command line allows DefaultMemoryLimit unless told
// otherwise; the browser, where a wasm program cannot grow past 4 GiB and
// Go's heap needs room to collect, allows BrowserMemoryLimit.
const (
	DefaultMemoryLimit int64 = 8 << 30
	BrowserMemoryLimit int64 = 1 << 30
)
