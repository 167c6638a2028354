package planner

import (
	"memplan/ir"
	"slices"
	"strconv"
)

// AppendTensorsJSON appends the tensors as a JSON array, byte for byte
// what encoding/json writes for []PlanTensor, without reflection: the
// viewer sends every tensor to the page after each plan, and for 62,000
// tensors encoding/json took over half a second in the browser's wasm.
func AppendTensorsJSON(b []byte, ts []PlanTensor) []byte { return appendTensors(b, ts, false) }

// AppendTableJSON is AppendTensorsJSON with each tensor's size and
// offset in words beside their numbers ("size_text": "1.50 MiB",
// "offset_text": "1,572,864"), as the pages' tables show them: the page
// formats no bytes itself.
func AppendTableJSON(b []byte, ts []PlanTensor) []byte { return appendTensors(b, ts, true) }

func appendTensors(b []byte, ts []PlanTensor, texts bool) []byte {
	// Room for every row at once: ten megabytes grown by doubling were
	// copied twice over and gave the collector work, half the time here.
	need := 2
	for i := range ts {
		t := &ts[i]
		need += tensorJSONRoom + tensorTextRoom*btoi(texts) + len(t.Name) + len(t.Op) + len(t.Node) + len(t.Phase) + len(t.DType) + len(t.Reuses) + len(t.Root) + 8*len(t.Shape)
	}
	b = slices.Grow(b, need)
	b = append(b, '[')
	for i := range ts {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendTensorJSON(b, &ts[i], texts)
	}
	return append(b, ']')
}

func btoi(v bool) int {
	if v {
		return 1
	}
	return 0
}

// AppendStringsJSON appends names as a JSON array of strings, as
// encoding/json writes them, without reflection: a plan's placement order
// lists every buffer.
func AppendStringsJSON(b []byte, names []string) []byte {
	if names == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, n := range names {
		if i > 0 {
			b = append(b, ',')
		}
		b = ir.AppendJSONString(b, n)
	}
	return append(b, ']')
}

// tensorJSONRoom is a row's bytes besides its strings and shape: the keys
// and numbers of typical sizes (a larger row only grows the buffer).
const tensorJSONRoom = 160

// tensorTextRoom is what the texts of AppendTableJSON add to a row.
const tensorTextRoom = 56

func appendTensorJSON(b []byte, t *PlanTensor, texts bool) []byte {
	b = append(b, `{"name":`...)
	b = ir.AppendJSONString(b, t.Name)
	b = append(b, `,"op":`...)
	b = ir.AppendJSONString(b, t.Op)
	if t.Node != "" {
		b = append(b, `,"node":`...)
		b = ir.AppendJSONString(b, t.Node)
	}
	if t.Phase != "" {
		b = append(b, `,"phase":`...)
		b = ir.AppendJSONString(b, t.Phase)
	}
	b = append(b, `,"kind":`...)
	b = ir.AppendJSONString(b, string(t.Kind))
	b = append(b, `,"shape":`...)
	if t.Shape == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for k, d := range t.Shape {
			if k > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, d, 10)
		}
		b = append(b, ']')
	}
	b = append(b, `,"dtype":`...)
	b = ir.AppendJSONString(b, t.DType)
	b = append(b, `,"size":`...)
	b = strconv.AppendInt(b, t.Size, 10)
	b = append(b, `,"offset":`...)
	b = strconv.AppendInt(b, t.Offset, 10)
	b = append(b, `,"guard":`...)
	b = strconv.AppendInt(b, t.Guard, 10)
	b = append(b, `,"birth":`...)
	b = strconv.AppendInt(b, int64(t.Birth), 10)
	b = append(b, `,"death":`...)
	b = strconv.AppendInt(b, int64(t.Death), 10)
	if t.Reuses != "" {
		b = append(b, `,"reuses":`...)
		b = ir.AppendJSONString(b, t.Reuses)
	}
	if t.Root != "" {
		b = append(b, `,"root":`...)
		b = ir.AppendJSONString(b, t.Root)
	}
	b = append(b, `,"view_offset":`...)
	b = strconv.AppendInt(b, t.ViewOffset, 10)
	if t.Skipped {
		b = append(b, `,"skipped":true`...)
	}
	if s := t.BufferSlot; s != nil {
		b = append(b, `,"buffer":`...)
		b = strconv.AppendInt(b, int64(s.Buffer), 10)
		b = append(b, `,"buffer_offset":`...)
		b = strconv.AppendInt(b, s.BufferOffset, 10)
	}
	if texts {
		b = append(b, `,"size_text":`...)
		b = ir.AppendJSONString(b, FormatBytes(t.Size))
		if t.Offset >= 0 {
			b = append(b, `,"offset_text":`...)
			b = ir.AppendJSONString(b, GroupDigits(t.Offset))
		}
	}
	return append(b, '}')
}
