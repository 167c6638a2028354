package ir

import (
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
)

func TestDecodeBufferCSV(t *testing.T) {
	row := func(line int, id string, lo, up, size int64) BufferRow {
		return BufferRow{ID: id, Lower: lo, Upper: up, Size: size, Line: line}
	}
	cases := []struct {
		name string
		in   string
		want []BufferRow
	}{
		{"minimal", "id,lower,upper,size\nb1,0,3,4\nb2,3,9,4\n", []BufferRow{row(2, "b1", 0, 3, 4), row(3, "b2", 3, 9, 4)}},
		{"no trailing newline", "id,lower,upper,size\nb1,0,3,4", []BufferRow{row(2, "b1", 0, 3, 4)}},
		{"CRLF", "id,lower,upper,size\r\nb1,0,3,4\r\nb2,1,2,0\r\n", []BufferRow{row(2, "b1", 0, 3, 4), row(3, "b2", 1, 2, 0)}},
		{"header only", "id,lower,upper,size\n", []BufferRow{}},
		{"header only without newline", "id,lower,upper,size", []BufferRow{}},
		{"byte order mark", "\ufeffid,lower,upper,size\n1,0,1,1\n", []BufferRow{row(2, "1", 0, 1, 1)}},
		{"column order and spaces", "size , upper,id,lower\n 8, 5 ,a, 2\n", []BufferRow{row(2, "a", 2, 5, 8)}},
		{"blank lines skipped", "\nid,lower,upper,size\n\n1,0,1,1\n  \n2,0,1,1\n\n", []BufferRow{row(4, "1", 0, 1, 1), row(6, "2", 0, 1, 1)}},
		{"legacy names, inclusive end", "buffer,start,end,size\nb,0,0,4\nc,2,9,1\n", []BufferRow{row(2, "b", 0, 1, 4), row(3, "c", 2, 10, 1)}},
		{"buffer_id and begin", "buffer_id,begin,upper,size\nb,0,1,4\n", []BufferRow{row(2, "b", 0, 1, 4)}},
		{"uppercase header, quoted id", "ID,Lower,Upper,Size\n\"b 1\",0,1,4\n", []BufferRow{row(2, "b 1", 0, 1, 4)}},
		{"alignment and offset", "id,lower,upper,size,alignment,offset\nb,0,1,4,64,128\n",
			[]BufferRow{{ID: "b", Lower: 0, Upper: 1, Size: 4, Alignment: 64, Offset: 128, HasOffset: true, Line: 2}}},
		{"hint and gaps ignored", "id,lower,upper,size,hint,gaps\nb,0,1,4,3,whatever\n", []BufferRow{row(2, "b", 0, 1, 4)}},
		{"empty ignored field", "id,hint,lower,upper,size\nb,,0,1,4\n", []BufferRow{row(2, "b", 0, 1, 4)}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tb, err := DecodeBufferCSV("dir/x.csv", []byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if tb.Name != "x" {
				t.Errorf("name %q, want x", tb.Name)
			}
			if !reflect.DeepEqual(tb.Rows, tc.want) {
				t.Errorf("rows\n got %+v\nwant %+v", tb.Rows, tc.want)
			}
		})
	}
}

func TestDecodeBufferCSVErrors(t *testing.T) {
	const h = "id,lower,upper,size\n"
	cases := []struct {
		name      string
		in        string
		line, col int
		msg       string
	}{
		{"empty file", "", 1, 0, "empty file"},
		{"blank file", "\n \r\n", 2, 0, "empty file"},
		{"unknown column", "id,lower,upper,size,colour\n", 1, 0, `unknown column "colour"`},
		{"missing column", "id,lower,size\n", 1, 0, `missing column "upper"`},
		{"column twice", "id,lower,upper,end,size\n", 1, 0, `column "upper" given twice (as "upper" and "end")`},
		{"too few fields", h + "a,0,1,1\nb,0,1\n", 3, 0, "3 fields, want 4"},
		{"too many fields", h + "a,0,1,1,9\n", 2, 0, "5 fields, want 4"},
		{"not an integer", h + "a,0,x1,1\n", 2, 5, `column "upper": "x1" is not an integer`},
		{"float", h + "a,0,1,1.5\n", 2, 7, `column "size": "1.5" is not an integer`},
		{"empty number", h + "a,,1,1\n", 2, 3, `column "lower": "" is not an integer`},
		{"out of range", h + "a,0,1,99999999999999999999\n", 2, 7, `"99999999999999999999" is out of range`},
		{"upper equals lower", h + "a,0,1,1\nb,5,5,1\n", 3, 5, `column "upper": 5 is not greater than lower 5`},
		{"upper below lower", h + "b,5,2,1\n", 2, 5, `column "upper": 2 is not greater than lower 5`},
		{"inclusive end before start", "buffer,start,end,size\nb,5,3,1\n", 2, 5, `column "end": 3 is before the start 5`},
		{"inclusive end at max", "buffer,start,end,size\nb,5,9223372036854775807,1\n", 2, 5, `column "end": 9223372036854775807 is out of range`},
		{"negative lower", h + "b,-1,2,1\n", 2, 3, `column "lower": -1 is negative`},
		{"negative lower legacy", "buffer,begin,end,size\nb,-1,2,1\n", 2, 3, `column "begin": -1 is negative`},
		{"negative size", "size,id,lower,upper\n-4,b,0,1\n", 2, 1, `column "size": -4 is negative`},
		{"duplicate id", h + "a,0,1,1\nb,0,1,1\na,2,3,1\n", 4, 1, `duplicate id "a" (also line 2)`},
		{"empty id", h + ",0,1,1\n", 2, 1, `column "id": empty id`},
		{"alignment not power of two", "id,lower,upper,size,alignment\nb,0,1,1,48\n", 2, 9, `column "alignment": 48 is not a positive power of two`},
		{"alignment zero", "id,lower,upper,size,alignment\nb,0,1,1,0\n", 2, 9, `column "alignment": 0 is not a positive power of two`},
		{"alignment negative", "id,lower,upper,size,alignment\nb,0,1,1,-64\n", 2, 9, `-64 is not a positive power of two`},
		{"negative offset", "id,lower,upper,size,offset\nb,0,1,1,-8\n", 2, 9, `column "offset": -8 is negative`},
		{"CRLF line numbers", "id,lower,upper,size\r\na,0,1,1\r\nb,0,0,1\r\n", 3, 5, `column "upper"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tb, err := DecodeBufferCSV("b.csv", []byte(tc.in))
			if tb != nil {
				t.Error("got a table with an error")
			}
			checkErr(t, errCase{line: tc.line, col: tc.col, msg: tc.msg}, err)
			if e, ok := err.(*Error); ok {
				if e.File != "b.csv" || e.Line != tc.line || e.Column != tc.col {
					t.Errorf("at %s:%d:%d, want b.csv:%d:%d", e.File, e.Line, e.Column, tc.line, tc.col)
				}
			}
		})
	}
}

func TestDecodeBufferCSVFiles(t *testing.T) {
	cases := []struct {
		file  string
		rows  int
		index int
		want  BufferRow
	}{
		{"testdata/input.12.csv", 5, 1, BufferRow{ID: "b2", Lower: 3, Upper: 9, Size: 4, Line: 3}},
		{"testdata/A.1048576.csv", 154, 0, BufferRow{ID: "0", Lower: 995328, Upper: 1000448, Size: 656384, Line: 2}},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			data, err := os.ReadFile(tc.file)
			if err != nil {
				t.Fatal(err)
			}
			tb, err := DecodeBufferCSV(tc.file, data)
			if err != nil {
				t.Fatal(err)
			}
			if len(tb.Rows) != tc.rows {
				t.Fatalf("%d rows, want %d", len(tb.Rows), tc.rows)
			}
			if got := tb.Rows[tc.index]; got != tc.want {
				t.Errorf("row %d = %+v, want %+v", tc.index, got, tc.want)
			}
			for i, r := range tb.Rows {
				if r.Line != i+2 || r.Upper <= r.Lower || r.Size <= 0 {
					t.Errorf("row %d: %+v", i, r)
				}
			}
			// Decode dispatches .csv files here.
			src, err := Decode(tc.file, data, DecodeOptions{})
			if err != nil || src.Buffers == nil || len(src.Buffers.Rows) != tc.rows {
				t.Errorf("Decode: %v", err)
			}
		})
	}
}

// bigCSV is a MiniMalloc-style file with n rows, about the size of the
// largest published instance (Y_1, 62185 rows).
func bigCSV(n int) []byte {
	var b strings.Builder
	b.WriteString("id,lower,upper,size\n")
	for i := range n {
		fmt.Fprintf(&b, "%d,%d,%d,%d\n", i, i*7%100000, i*7%100000+3+i%977, 1024+i*13%9000000)
	}
	return []byte(b.String())
}

func TestDecodeBufferCSVLarge(t *testing.T) {
	data := bigCSV(62185)
	tb, err := DecodeBufferCSV("y.csv", data)
	if err != nil {
		t.Fatal(err)
	}
	if len(tb.Rows) != 62185 || tb.Rows[62184].ID != "62184" || tb.Rows[62184].Line != 62186 {
		t.Fatalf("%d rows, last %+v", len(tb.Rows), tb.Rows[len(tb.Rows)-1])
	}
}

func BenchmarkDecodeBufferCSV(b *testing.B) {
	data := bigCSV(62185)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeBufferCSV("y.csv", data); err != nil {
			b.Fatal(err)
		}
	}
}
