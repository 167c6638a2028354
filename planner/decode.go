package planner

import (
	"math"
	"slices"

	"memplan/ir"
)

// DecodePlan reads a plan record (memplan.plan/v1) with ir.JSONReader,
// the reader of graph JSON, so that it reads what JSON.parse (the page,
// tools/gpurun) reads: field names exactly as written, a field given
// twice or unknown is an error with its path, integers only as far as
// JSON.parse reads them exactly, and every field memplan writes is
// required. Errors say where: line and column, and the JSON path. It does
// not prove the plan valid: that is Verify's job.
func DecodePlan(name string, data []byte) (*Plan, error) {
	d := &planDecoder{r: ir.NewJSONReader(name, data)}
	var p Plan
	if err := d.plan(&p); err != nil {
		return nil, err
	}
	if err := d.r.End(); err != nil {
		return nil, err
	}
	return &p, nil
}

type planDecoder struct {
	r    *ir.JSONReader
	dims []int64 // the shapes' dims, allocated in blocks
}

// Field names of each object of a plan record, as Plan's JSON tags name
// them; those marked * may be left out (omitempty).
var (
	planFields = []string{"format", "name", "arena_size", "lower_bound", "aligned_lower_bound", "total_unshared", "saved",
		"fragmentation", "alignment", "strategy", "optimal", "*optimal_by_search", "options", "steps", "schedule", "*phases",
		"*reads", "tensors", "io", "symbols", "*notes", "*placement_order", "*binding", "*limits", "*buffers",
		"*placement_rule", "fingerprint"}
	tensorFields = []string{"name", "op", "*node", "*phase", "kind", "shape", "dtype", "size", "offset", "guard", "birth",
		"death", "*reuses", "*root", "view_offset", "*skipped", "*alignment", "*buffer", "*buffer_offset"}
	optionFields = []string{"alignment", "f32_uniform", "no_reuse", "skip_params", "skip_inputs", "skip_constants", "guard", "*symbols"}
	ioFields     = []string{"inputs", "params", "constants", "outputs"}
	limitFields  = []string{"profile", "maxStorageBufferBindingSize", "maxBufferSize", "minStorageBufferOffsetAlignment"}
	bufferFields = []string{"offset", "size"}
)

func (d *planDecoder) object(fields []string, each func(key string) error) error {
	return d.r.Struct(fields, each)
}

func (d *planDecoder) int64(v *int64) (err error) {
	*v, err = d.r.Int()
	return err
}

func (d *planDecoder) int(v *int) error {
	n, err := d.r.Int()
	if err == nil && int64(int(n)) != n {
		return d.r.Errorf("integer %d is out of range", n)
	}
	*v = int(n)
	return err
}

func (d *planDecoder) str(v *string) (err error) {
	*v, err = d.r.String()
	return err
}

func (d *planDecoder) bool(v *bool) (err error) {
	*v, err = d.r.Bool()
	return err
}

// strings reads an array of strings; null, as a nil slice is written, is
// nil.
func (d *planDecoder) strings(v *[]string) error {
	if d.r.Null() {
		*v = nil
		return nil
	}
	out := []string{}
	err := d.r.Array(func(int) error {
		s, err := d.r.String()
		out = append(out, s)
		return err
	})
	*v = out
	return err
}

func (d *planDecoder) ints(v *[]int) error {
	out := []int{}
	err := d.r.Array(func(int) error {
		var n int
		err := d.int(&n)
		out = append(out, n)
		return err
	})
	*v = out
	return err
}

func (d *planDecoder) symbols(v *map[string]int64) error {
	out := map[string]int64{}
	err := d.r.Object(func(key string) error {
		n, err := d.r.Int()
		out[key] = n
		return err
	})
	*v = out
	return err
}

func (d *planDecoder) plan(p *Plan) error {
	return d.object(planFields, func(key string) error {
		switch key {
		case "format":
			if err := d.str(&p.Format); err != nil {
				return err
			}
			if p.Format != PlanFormat {
				return d.r.Errorf("format is %s, want %s", ir.Quote(p.Format), ir.Quote(PlanFormat))
			}
			return nil
		case "name":
			return d.str(&p.Name)
		case "arena_size":
			return d.int64(&p.ArenaSize)
		case "lower_bound":
			return d.int64(&p.LowerBound)
		case "aligned_lower_bound":
			return d.int64(&p.AlignedLowerBound)
		case "total_unshared":
			return d.int64(&p.TotalUnshared)
		case "saved":
			return d.int64(&p.Saved)
		case "fragmentation":
			f, err := d.r.Float()
			if err == nil && (math.IsInf(f, 0) || math.IsNaN(f)) {
				err = d.r.Errorf("fragmentation %v is not a finite number", f)
			}
			p.Fragmentation = f
			return err
		case "alignment":
			return d.int64(&p.Alignment)
		case "strategy":
			return d.str(&p.Strategy)
		case "optimal":
			return d.bool(&p.Optimal)
		case "optimal_by_search":
			return d.bool(&p.OptimalBySearch)
		case "options":
			return d.options(&p.Options)
		case "steps":
			return d.int(&p.Steps)
		case "schedule":
			return d.strings(&p.Schedule)
		case "phases":
			return d.strings(&p.Phases)
		case "reads":
			p.Reads = [][]int{}
			return d.r.Array(func(int) error {
				var r []int
				err := d.ints(&r)
				p.Reads = append(p.Reads, r)
				return err
			})
		case "tensors":
			p.Tensors = []PlanTensor{}
			return d.r.Array(func(int) error {
				if len(p.Tensors) == cap(p.Tensors) {
					// Doubled: append grows a large slice by a quarter,
					// copying a record's tensors four times over.
					p.Tensors = slices.Grow(p.Tensors, max(len(p.Tensors), 64))
				}
				p.Tensors = append(p.Tensors, PlanTensor{})
				return d.tensor(&p.Tensors[len(p.Tensors)-1])
			})
		case "io":
			return d.object(ioFields, func(key string) error {
				switch key {
				case "inputs":
					return d.strings(&p.IO.Inputs)
				case "params":
					return d.strings(&p.IO.Params)
				case "constants":
					return d.strings(&p.IO.Constants)
				}
				return d.strings(&p.IO.Outputs)
			})
		case "symbols":
			return d.symbols(&p.Symbols)
		case "notes":
			return d.strings(&p.Notes)
		case "placement_order":
			return d.strings(&p.PlacementOrder)
		case "binding":
			return d.str(&p.Binding)
		case "limits":
			p.Limits = &Limits{}
			return d.limits(p.Limits)
		case "buffers":
			p.Buffers = []GPUBuffer{}
			return d.r.Array(func(int) error {
				var b GPUBuffer
				err := d.object(bufferFields, func(key string) error {
					if key == "offset" {
						return d.int64(&b.Offset)
					}
					return d.int64(&b.Size)
				})
				p.Buffers = append(p.Buffers, b)
				return err
			})
		case "placement_rule":
			return d.str(&p.PlacementRule)
		}
		return d.str(&p.Fingerprint)
	})
}

func (d *planDecoder) options(o *Options) error {
	return d.object(optionFields, func(key string) error {
		switch key {
		case "alignment":
			return d.int64(&o.Alignment)
		case "f32_uniform":
			return d.bool(&o.F32Uniform)
		case "no_reuse":
			return d.bool(&o.NoReuse)
		case "skip_params":
			return d.bool(&o.SkipParams)
		case "skip_inputs":
			return d.bool(&o.SkipInputs)
		case "skip_constants":
			return d.bool(&o.SkipConstants)
		case "guard":
			return d.int64(&o.Guard)
		}
		return d.symbols(&o.Symbols)
	})
}

func (d *planDecoder) limits(l *Limits) error {
	return d.object(limitFields, func(key string) error {
		switch key {
		case "profile":
			return d.str(&l.Profile)
		case "maxStorageBufferBindingSize":
			return d.int64(&l.MaxStorageBufferBindingSize)
		case "maxBufferSize":
			return d.int64(&l.MaxBufferSize)
		}
		return d.int64(&l.MinStorageBufferOffsetAlignment)
	})
}

func (d *planDecoder) tensor(t *PlanTensor) error {
	var slot BufferSlot // copied out only when there is one
	var hasBuffer, hasOffset bool
	err := d.object(tensorFields, func(key string) error {
		switch key {
		case "name":
			return d.str(&t.Name)
		case "op":
			return d.str(&t.Op)
		case "node":
			return d.str(&t.Node)
		case "phase":
			return d.str(&t.Phase)
		case "kind":
			var k string
			err := d.str(&k)
			t.Kind = Kind(k)
			return err
		case "shape":
			return d.shape(&t.Shape)
		case "dtype":
			return d.str(&t.DType)
		case "size":
			return d.int64(&t.Size)
		case "offset":
			return d.int64(&t.Offset)
		case "guard":
			return d.int64(&t.Guard)
		case "birth":
			return d.int(&t.Birth)
		case "death":
			return d.int(&t.Death)
		case "reuses":
			return d.str(&t.Reuses)
		case "root":
			return d.str(&t.Root)
		case "view_offset":
			return d.int64(&t.ViewOffset)
		case "skipped":
			return d.bool(&t.Skipped)
		case "alignment":
			return d.int64(&t.Alignment)
		case "buffer":
			hasBuffer = true
			return d.int(&slot.Buffer)
		}
		hasOffset = true
		return d.int64(&slot.BufferOffset)
	})
	if err != nil {
		return err
	}
	if hasBuffer != hasOffset {
		return d.r.Errorf("tensor %s: buffer and buffer_offset come together", ir.Quote(t.Name))
	}
	if hasBuffer {
		t.BufferSlot = &BufferSlot{slot.Buffer, slot.BufferOffset}
	}
	return nil
}

// shape reads a shape into a block of dims shared with other shapes: a
// record's tensors have a few dims each, and one allocation each would
// be most of the decoding's garbage.
func (d *planDecoder) shape(v *[]int64) error {
	start := len(d.dims)
	err := d.r.Array(func(int) error {
		if len(d.dims) == cap(d.dims) {
			// A new block; this shape's dims so far move with it.
			block := make([]int64, len(d.dims)-start, max(1024, 2*(len(d.dims)-start)))
			copy(block, d.dims[start:])
			d.dims, start = block, 0
		}
		n, err := d.r.Int()
		d.dims = append(d.dims, n)
		return err
	})
	*v = d.dims[start:len(d.dims):len(d.dims)]
	if len(*v) == 0 {
		*v = []int64{} // as NewPlan writes a scalar's: [], not null
	}
	return err
}
