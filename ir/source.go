package ir

import (
	"fmt"
	"path"
	"strings"
	"sync"
)

// Source is what a decoded file holds: a graph, or a table of buffers for
// formats that list lifetimes and sizes directly. Exactly one is non-nil.
type Source struct {
	Graph   *Graph
	Buffers *BufferTable
}

// BufferTable is a list of buffers with lifetimes and sizes, as MiniMalloc
// and idealloc publish their benchmark instances.
type BufferTable struct {
	Name string
	Rows []BufferRow
}

// BufferRow is one buffer. Its lifetime is the half-open interval
// [Lower, Upper), in abstract time units.
type BufferRow struct {
	ID           string
	Lower, Upper int64
	Size         int64
	Alignment    int64 // 0: the problem's default
	Offset       int64 // fixed offset when HasOffset (input) or a solver's answer
	HasOffset    bool
	Line         int // 1-based line in the file, for later errors
}

// DecodeOptions tune decoding of formats that need them.
type DecodeOptions struct {
	// Symbols bind symbolic dimensions while decoding, for formats whose
	// shape inference needs concrete values (ONNX).
	Symbols map[string]int64

	// IfBranch picks the branch of an ONNX If whose outputs size the If's
	// outputs when its branches give different shapes or dtypes and its
	// condition is not a constant: "then" or "else". Empty (the default)
	// requires the branches to agree; decoding fails otherwise, naming the
	// If node, the output and both branches' shapes.
	IfBranch string
}

// A format decodes one kind of file.
type format struct {
	name   string
	match  func(fileName string, data []byte) bool
	decode func(fileName string, data []byte, opts DecodeOptions) (*Source, error)
}

var (
	formatsMu sync.RWMutex
	formats   []format
)

// RegisterFormat adds a decoder used by Decode. match reports whether a
// file (by name or first bytes) is in this format. Formats registered later
// are tried first, so a specific format can take files a general one would.
func RegisterFormat(name string, match func(fileName string, data []byte) bool,
	decode func(fileName string, data []byte, opts DecodeOptions) (*Source, error)) {
	formatsMu.Lock()
	defer formatsMu.Unlock()
	formats = append([]format{{name, match, decode}}, formats...)
}

func init() {
	RegisterFormat("graph-json", func(name string, data []byte) bool {
		return strings.EqualFold(path.Ext(name), ".json") || firstNonSpace(data) == '{'
	}, func(name string, data []byte, _ DecodeOptions) (*Source, error) {
		g, err := DecodeGraph(name, data)
		if err != nil {
			return nil, err
		}
		return &Source{Graph: g}, nil
	})
	RegisterFormat("buffer-csv", func(name string, data []byte) bool {
		return strings.EqualFold(path.Ext(name), ".csv")
	}, func(name string, data []byte, _ DecodeOptions) (*Source, error) {
		t, err := DecodeBufferCSV(name, data)
		if err != nil {
			return nil, err
		}
		return &Source{Buffers: t}, nil
	})
}

// Decode reads a file in any registered format, chosen by its name and
// first bytes. Import memplan/ir/onnx for ONNX support.
func Decode(fileName string, data []byte, opts DecodeOptions) (*Source, error) {
	formatsMu.RLock()
	fs := formats
	formatsMu.RUnlock()
	for _, f := range fs {
		if f.match(fileName, data) {
			return f.decode(fileName, data, opts)
		}
	}
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = f.name
	}
	return nil, &Error{File: fileName, Msg: fmt.Sprintf("unknown file format (known: %s)", strings.Join(names, ", "))}
}

func firstNonSpace(data []byte) byte {
	for _, c := range data {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		}
		return c
	}
	return 0
}
