// Package npmpkg writes memplan's JavaScript package (tools/npm, make
// npm): the module's source (npm/), the planner worker's wasm, Go's
// wasm_exec.js, index.d.ts from Go's types, and a README that states the
// package's weight. The browser tests serve what it writes.
package npmpkg

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"memplan/tools/site"
	"memplan/wasm/protocol/typedefs"
)

// Version is the package's version.
const Version = "0.1.0"

// Weights are the package's files' sizes gzipped (-9), in bytes.
type Weights struct {
	Total, Wasm int64
	Files       map[string]int64
}

// files copied into the package as they are, from the repository.
var copied = []string{"index.mjs", "worker.mjs", "index.d.ts"}

// Build writes the package into out (emptied first) and returns its weight.
func Build(ctx context.Context, root, out string) (Weights, error) {
	w := Weights{Files: map[string]int64{}}
	if err := os.RemoveAll(out); err != nil {
		return w, err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return w, err
	}
	// index.d.ts is checked in beside the module (a test holds it to Go's
	// types); the package gets Go's text, so a stale copy cannot ship.
	files := map[string][]byte{"index.d.ts": []byte(typedefs.TypeScript())}
	for _, name := range copied {
		if files[name] != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join(root, "npm", name))
		if err != nil {
			return w, err
		}
		files[name] = b
	}
	var err error
	if files["wasm_exec.js"], err = os.ReadFile(site.WasmExec()); err != nil {
		return w, err
	}
	wasm := filepath.Join(out, site.WorkerFile)
	if err := site.BuildWorker(ctx, root, wasm); err != nil {
		return w, err
	}
	if files[site.WorkerFile], err = os.ReadFile(wasm); err != nil {
		return w, err
	}
	if files["package.json"], err = packageJSON(); err != nil {
		return w, err
	}
	if files["LICENSE"], err = os.ReadFile(filepath.Join(root, "npm", "LICENSE")); err != nil {
		return w, err
	}
	// wasm_exec.js is the Go authors': their licence travels with it.
	if files["LICENSE-go"], err = os.ReadFile(filepath.Join(runtime.GOROOT(), "LICENSE")); err != nil {
		return w, err
	}
	for name, b := range files {
		n := gzipped(b)
		w.Files[name] = n
		w.Total += n
	}
	w.Wasm = w.Files[site.WorkerFile]
	readme, err := os.ReadFile(filepath.Join(root, "npm", "README.md"))
	if err != nil {
		return w, err
	}
	files["README.md"] = bytes.ReplaceAll(readme, []byte("{{WEIGHT}}"), []byte(weightText(w)))
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(out, name), b, 0o644); err != nil {
			return w, err
		}
	}
	return w, nil
}

func packageJSON() ([]byte, error) {
	p := map[string]any{
		"name":        "memplan",
		"version":     Version,
		"description": "Plan the memory of ML compute graphs (ONNX, graph JSON, buffer CSV) into one arena, in browsers and Node: a verified offset for every tensor.",
		"type":        "module",
		"main":        "./index.mjs",
		"types":       "./index.d.ts",
		"exports": map[string]any{
			".": map[string]string{"types": "./index.d.ts", "default": "./index.mjs"},
		},
		"files":       []string{"index.mjs", "index.d.ts", "worker.mjs", "wasm_exec.js", site.WorkerFile, "README.md", "LICENSE", "LICENSE-go"},
		"engines":     map[string]string{"node": ">=20"},
		"license":     "SEE LICENSE IN LICENSE",
		"keywords":    []string{"memory planning", "onnx", "webgpu", "wasm", "arena", "tensor"},
		"sideEffects": false,
	}
	b, err := json.MarshalIndent(p, "", "  ")
	return append(b, '\n'), err
}

func gzipped(b []byte) int64 {
	var buf bytes.Buffer
	z, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	z.Write(b)
	z.Close()
	return int64(buf.Len())
}

// weightText is the README's sentence on the package's weight.
func weightText(w Weights) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s gzipped in all: planner.wasm %s, the JavaScript (index.mjs, worker.mjs, Go's wasm_exec.js) %s",
		KB(w.Total), KB(w.Wasm), KB(w.Files["index.mjs"]+w.Files["worker.mjs"]+w.Files["wasm_exec.js"]))
	return b.String()
}

// KB is a byte count in kB or MB, as the README states weights.
func KB(n int64) string {
	if n >= 1e6 {
		return fmt.Sprintf("%.2f MB", float64(n)/1e6)
	}
	return fmt.Sprintf("%.1f kB", float64(n)/1e3)
}
