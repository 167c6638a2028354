package ir

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// addFiles adds every file of testdata matching pattern to the corpus.
func addFiles(f *testing.F, pattern string) {
	files, err := filepath.Glob(filepath.Join("testdata", pattern))
	if err != nil {
		f.Fatal(err)
	}
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
}

// checkDecodeErr asserts the error contract: an *Error naming the file
// and saying something.
func checkDecodeErr(t *testing.T, err error, file string) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %T %v is not an *ir.Error", err, err)
	}
	if e.File != file || e.Msg == "" {
		t.Fatalf("error without file or message: %#v", e)
	}
}

func FuzzDecodeGraph(f *testing.F) {
	addFiles(f, "*.json")
	for _, s := range []string{
		graphOf(join3(nX, nW, nMM), `,"outputs":["mm"]`),
		graphOf(join3(nMM, nW, nX), `,"schedule":["w","x","mm"]`),
		graphOf(join3(nX, nMM, nW), ""),
		graphOf(nX+`,{"name":"n","op":"narrow","inputs":["x"],"axis":0,"start":6,"len":4,"shape":[4,4],"dtype":"f32"}`, ""),
		graphOf(nX+`,{"name":"r","op":"reshape","inputs":["x"],"shape":[64],"dtype":"f32"}`, ""),
		graphOf(nX+`,{"name":"c","op":"cast","inputs":["x"],"to":"f32","shape":["batch",4],"dtype":"f32","pin":"end","pin_producers":true}`, ""),
		graphOf(`{"name":"s","op":"input","outputs":[{"name":"a","shape":[0],"dtype":"u8","pin":3}]}`, ""),
		graphOf(`{"name":"a","op":"relu","inputs":["a"],"shape":[1],"dtype":"f32"}`, ""),
		graphOf(`{"name":"x","op":"input","shape":[4294967296,4294967296],"dtype":"f32"}`, ""),
		`{"format":"memplan.graph/v1","symbols":{"a b":-1},"nodes":[]}`,
		`{"format":"memplan.graph/v1","nodes":[{"name":"x\u0000","op":"input","shape":[],"dtype":"bool"}]}`,
		`{"format":"memp`,
		`[[[[[[[[`,
		`{"format":1e999}`,
		``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := DecodeGraph("f.json", data)
		if err != nil {
			checkDecodeErr(t, err, "f.json")
			return
		}
		if err := g.Validate(); err != nil {
			t.Fatalf("decoded graph fails Validate: %v", err)
		}
		// What Validate accepts must size without overflow, as the
		// planner will size it.
		for _, n := range g.Nodes {
			if n.Path == "" {
				t.Fatalf("node %q has no path", n.Name)
			}
			for _, o := range n.Outputs {
				dims, err := g.Bind(o.Shape, nil)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := TensorBytes(dims, o.DType); err != nil {
					t.Fatalf("tensor %q: %v", o.Name, err)
				}
			}
		}
	})
}

func FuzzDecodeBufferCSV(f *testing.F) {
	addFiles(f, "*.csv")
	for _, s := range []string{
		"id,lower,upper,size\nb1,0,3,4\nb2,3,9,4\n",
		"buffer,start,end,size,alignment,offset,hint,gaps\r\nb,0,0,4,64,0,1,2\r\n",
		"size,upper,id,lower\n8,5,a,2",
		"id,lower,upper,size\na,0,1,1\na,0,1,1\n",
		"id,lower,upper,size\na,0,1\n",
		"id,lower,upper,size\na,5,5,1\n",
		"buffer,start,end,size\nb,5,9223372036854775807,1\n",
		"id,lower,upper,size,alignment\nb,0,1,1,48\n",
		"\ufeff\n\n",
		"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tb, err := DecodeBufferCSV("f.csv", data)
		if err != nil {
			checkDecodeErr(t, err, "f.csv")
			if e := err.(*Error); e.Line < 1 {
				t.Fatalf("CSV error without a line: %v", err)
			}
			return
		}
		ids := make(map[string]bool)
		for _, r := range tb.Rows {
			if r.Lower < 0 || r.Upper <= r.Lower || r.Size < 0 || r.Line < 2 || r.ID == "" ||
				r.Alignment < 0 || r.Alignment&(r.Alignment-1) != 0 || r.HasOffset && r.Offset < 0 || ids[r.ID] {
				t.Fatalf("bad row accepted: %+v", r)
			}
			ids[r.ID] = true
		}
	})
}
