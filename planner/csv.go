package planner

import (
	"fmt"
	"strconv"
	"strings"
)

// AppendBufferCSV appends the plan's placed buffers to b in the buffer-CSV
// format memplan reads (ir.DecodeBufferCSV): a header id,lower,upper,size,offset,
// then one line per tensor that owns arena bytes, with its half-open life
// [birth, death+1), its size with its guard bytes (the bytes nothing else
// may use while it lives) and its offset. Reading the file back gives a
// problem these offsets solve. Views and skipped tensors own no bytes and
// are left out. A name the format cannot carry as an id (with a comma, a
// quote or a line break) is an error naming the tensor.
func (p *Plan) AppendBufferCSV(b []byte) ([]byte, error) {
	b = append(b, "id,lower,upper,size,offset\n"...)
	for i := range p.Tensors {
		t := &p.Tensors[i]
		if !t.Placed() || t.Offset < 0 {
			continue
		}
		if t.Name == "" || strings.ContainsAny(t.Name, ",\"\r\n") || strings.TrimSpace(t.Name) != t.Name {
			return nil, fmt.Errorf("buffer CSV: tensor %q: a name that is empty, has a comma, a quote, a line break or outer spaces cannot be a buffer id", t.Name)
		}
		b = append(b, t.Name...)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(t.Birth), 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(t.Death)+1, 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, t.Size+t.Guard, 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, t.Offset, 10)
		b = append(b, '\n')
	}
	return b, nil
}
