package ir

import (
	"fmt"
	"path"
	"slices"
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
	File string // the file it was decoded from, for later errors
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
	// MaxMemory, if positive, is the most memory decoding and then
	// planning the file may need: a larger input is refused with a
	// *MemoryError before the work starts, never by running out.
	MaxMemory int64

	// IfBranch picks the branch of an ONNX If whose outputs size the If's
	// outputs when its branches give different shapes or dtypes and its
	// condition is not a constant: "then" or "else". Empty (the default)
	// requires the branches to agree; decoding fails otherwise, naming the
	// If node, the output and both branches' shapes.
	IfBranch string
}

// Memory estimates, measured on large inputs (see the README): decoding
// allocates at most expansion × the file's size (graph JSON builds a
// tree of values first; a buffer CSV about 6×; ONNX keeps weights as
// slices of the file), and planning needs about planBytesPerTensor for
// each tensor or buffer at its peak, the plan record and its JSON
// included, with the garbage collector's headroom.
const (
	planBytesPerBuffer = 2 << 10 // a buffer CSV row
	planBytesPerTensor = 4 << 10 // a graph's tensor: shape, names, views
)

var decodeExpansion = map[string]int64{"graph-json": 16, "buffer-csv": 8, "onnx": 8}

// MinExpansion is the least of those multiples, and of any other format's
// (a plan record's): a front end refuses a file larger than its memory
// limit over MinExpansion before reading it.
const MinExpansion = 8

// MemoryError reports an input that would need more memory than allowed.
type MemoryError struct {
	File  string
	What  string // "decoding 293.0 MB of buffer-csv", "planning 10000000 buffers"
	Need  int64  // estimated bytes
	Limit int64
	// AtLeast: Need is a floor, not an estimate (a stream refused before
	// its end).
	AtLeast bool
}

func (e *MemoryError) Error() string {
	about := "about"
	if e.AtLeast {
		about = "more than"
	}
	return fmt.Sprintf("%s: %s needs %s %s, over the memory limit of %s", e.File, e.What, about, FormatBytes(e.Need), FormatBytes(e.Limit))
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

// builtinFormats are the formats of this package, tried after every
// registered one (buffer CSV, then graph JSON: the most general last).
// They are a function rather than registered in an init, which would link
// both decoders into every program that imports ir, the page's viewer
// among them, whether or not it decodes anything.
func builtinFormats() []format {
	return []format{
		{"buffer-csv", func(name string, data []byte) bool {
			return strings.EqualFold(path.Ext(name), ".csv")
		}, func(name string, data []byte, _ DecodeOptions) (*Source, error) {
			t, err := DecodeBufferCSV(name, data)
			if err != nil {
				return nil, err
			}
			return &Source{Buffers: t}, nil
		}},
		{"graph-json", func(name string, data []byte) bool {
			return strings.EqualFold(path.Ext(name), ".json") || firstNonSpace(data) == '{'
		}, func(name string, data []byte, _ DecodeOptions) (*Source, error) {
			g, err := DecodeGraph(name, data)
			if err != nil {
				return nil, err
			}
			return &Source{Graph: g}, nil
		}},
	}
}

// allFormats is every format in the order they are tried.
func allFormats() []format {
	formatsMu.RLock()
	fs := slices.Clone(formats)
	formatsMu.RUnlock()
	return append(fs, builtinFormats()...)
}

// FormatNames lists the registered formats, the most specific first.
func FormatNames() []string {
	fs := allFormats()
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = f.name
	}
	return names
}

// DetectFormat names the registered format that Decode would read the
// file as, by its name and first bytes, or reports that none matches.
func DetectFormat(fileName string, data []byte) (string, error) {
	f, err := detect(fileName, data)
	if err != nil {
		return "", err
	}
	return f.name, nil
}

func detect(fileName string, data []byte) (*format, error) {
	fs := allFormats()
	for i := range fs {
		if fs[i].match(fileName, data) {
			return &fs[i], nil
		}
	}
	return nil, &Error{File: fileName, Msg: fmt.Sprintf("unknown file format (known: %s)", strings.Join(FormatNames(), ", "))}
}

// Decode reads a file in any registered format, chosen by its name and
// first bytes. Import memplan/ir/onnx for ONNX support.
func Decode(fileName string, data []byte, opts DecodeOptions) (*Source, error) {
	f, err := detect(fileName, data)
	if err != nil {
		return nil, err
	}
	if opts.MaxMemory > 0 {
		if x, ok := decodeExpansion[f.name]; ok && int64(len(data)) > opts.MaxMemory/x {
			return nil, &MemoryError{File: fileName, What: fmt.Sprintf("decoding %s of %s", FormatBytes(int64(len(data))), f.name),
				Need: int64(len(data)) * x, Limit: opts.MaxMemory}
		}
	}
	src, err := f.decode(fileName, data, opts)
	if err != nil {
		return nil, err
	}
	if src.Graph != nil {
		if note := lookAlikeNote(src.Graph); note != "" {
			src.Graph.Notes = append(src.Graph.Notes, note)
		}
	}
	switch {
	case src.Graph != nil && src.Graph.File == "":
		src.Graph.File = fileName
	case src.Buffers != nil && src.Buffers.File == "":
		src.Buffers.File = fileName
	}
	if opts.MaxMemory > 0 {
		if n, what, each := src.count(); n > opts.MaxMemory/each {
			return nil, &MemoryError{File: fileName, What: fmt.Sprintf("planning %d %s", n, what),
				Need: n * each, Limit: opts.MaxMemory}
		}
	}
	return src, nil
}

// count is the number of tensors or buffers planning the source handles,
// and the bytes each needs.
func (s *Source) count() (n int64, what string, each int64) {
	if s.Buffers != nil {
		return int64(len(s.Buffers.Rows)), "buffers", planBytesPerBuffer
	}
	for i := range s.Graph.Nodes {
		n += int64(len(s.Graph.Nodes[i].Outputs))
	}
	return n, "tensors", planBytesPerTensor
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
