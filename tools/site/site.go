// Package site serves memplan's web app: the pages under web/, the viewer
// wasm and Go's wasm_exec.js, with the right MIME types and gzip. The serve
// command, the browser tests and the frame benchmark share it.
package site

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"mime"
	"net/http"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
)

// WasmExec is the path of Go's wasm_exec.js for this toolchain.
func WasmExec() string {
	return filepath.Join(runtime.GOROOT(), "lib", "wasm", "wasm_exec.js")
}

// The two programs and how they are built. Size is what the page pays
// for on every first visit (the first screen has a 3.5 MB budget, both
// together 5 MB, gzipped), so inlining is turned off where it buys
// little: in the standard library, whose inlined copies cost about 300 kB
// in the viewer, in ebiten, which spends its frame time in WebGL calls
// rather than Go, and in the decoders. The Go runtime keeps it: without,
// its allocator and collector ran the viewer's decoding of a 62,000
// tensor plan 3 to 20 times slower. So do viz (which builds every frame)
// and the planner (whose speed users wait on: 13 % slower without). In
// the worker, viz is only the SVG picture (viz/svgplot), made once a
// plan, and goes without.
var programs = []struct {
	pkg, out string
	gcflags  []string
}{
	{"./wasm", "", []string{"-gcflags=all=-l", "-gcflags=runtime=", "-gcflags=memplan/viz="}},
	{"./wasm/worker", WorkerFile, []string{"-gcflags=std=-l", "-gcflags=runtime=", "-gcflags=memplan/ir/...=-l", "-gcflags=memplan/wasm/...=-l", "-gcflags=memplan/viz/...=-l"}},
}

// WorkerFile is the planner worker's wasm, beside the viewer's.
const WorkerFile = "planner.wasm"

// BuildWasm compiles the viewer (./wasm of the module at root) to out and
// the planner worker (./wasm/worker) to planner.wasm beside it, and gzips
// each with zlib's gzip when there is one.
func BuildWasm(ctx context.Context, root, out string) error {
	for _, p := range programs {
		dst := out
		if p.out != "" {
			dst = filepath.Join(filepath.Dir(out), p.out)
		}
		if err := goBuild(ctx, root, dst, p.pkg, p.gcflags); err != nil {
			return err
		}
		// zlib's gzip -9 packs the wasm about 1 % (30 kB) tighter than
		// compress/gzip; the handler serves dst.gz when it is up to date.
		if gz, err := exec.LookPath("gzip"); err == nil {
			exec.CommandContext(ctx, gz, "-9", "-k", "-f", "-n", dst).Run()
		}
	}
	return nil
}

// BuildWorker compiles the planner worker alone (./wasm/worker of the
// module at root) to dst, as BuildWasm does: the npm package's wasm.
func BuildWorker(ctx context.Context, root, dst string) error {
	p := programs[1]
	return goBuild(ctx, root, dst, p.pkg, p.gcflags)
}

func goBuild(ctx context.Context, root, dst, pkg string, gcflags []string) error {
	args := append([]string{"build", "-trimpath", "-ldflags=-s -w"}, gcflags...)
	cmd := exec.CommandContext(ctx, "go", append(args, "-o", dst, pkg)...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("building %s: %v\n%s", pkg, err, b)
	}
	return nil
}

// ModuleRoot finds the directory of memplan's go.mod from dir upward.
func ModuleRoot(dir string) (string, error) {
	for d := dir; ; d = filepath.Dir(d) {
		if b, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil && bytes.HasPrefix(b, []byte("module memplan\n")) {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no memplan go.mod above %s", dir)
		}
	}
}

// Handler serves webDir at / (a folder by its index.html), with /memplan.wasm from wasmPath, the
// worker's /planner.wasm from beside it and /wasm_exec.js from the Go
// toolchain. Files are read on each request so
// edits to the pages show on reload; the wasm's gzip is cached by
// modification time since compressing it takes a while.
func Handler(webDir, wasmPath string) http.Handler {
	h := &handler{web: webDir, wasm: wasmPath, exec: WasmExec()}
	return h
}

type handler struct {
	web, wasm, exec string

	mu      sync.Mutex
	gzCache map[string]gzEntry
}

type gzEntry struct {
	mod  int64
	data []byte
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	p := path.Clean("/" + r.URL.Path)
	var file string
	switch p {
	case "/":
		file = filepath.Join(h.web, "index.html")
	case "/memplan.wasm":
		file = h.wasm
	case "/" + WorkerFile:
		file = filepath.Join(filepath.Dir(h.wasm), WorkerFile)
	case "/wasm_exec.js":
		file = h.exec
	default:
		// Clean rooted the path, so it cannot climb out of web/.
		file = filepath.Join(h.web, filepath.FromSlash(p[1:]))
		if _, err := os.Stat(file); err != nil && strings.HasPrefix(p, "/examples/") {
			// The examples beside web/ in the repository, where the
			// written site has them under its root.
			file = filepath.Join(filepath.Dir(h.web), filepath.FromSlash(p[1:]))
		}
	}
	st, err := os.Stat(file)
	if err == nil && st.IsDir() { // a folder's page: the site's docs/
		file = filepath.Join(file, "index.html")
		st, err = os.Stat(file)
	}
	if err != nil || st.IsDir() || strings.HasSuffix(file, "_test.go") || strings.HasSuffix(file, ".go") {
		http.NotFound(w, r)
		return
	}
	ctype := mime.TypeByExtension(filepath.Ext(file))
	switch filepath.Ext(file) {
	case ".wasm":
		ctype = "application/wasm" // instantiateStreaming insists on it
	case ".js":
		ctype = "text/javascript; charset=utf-8"
	case ".html":
		ctype = "text/html; charset=utf-8"
	case ".css":
		ctype = "text/css; charset=utf-8"
	case ".json":
		ctype = "application/json"
	}
	if ctype == "" {
		ctype = "application/octet-stream"
	}
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("Cache-Control", "no-cache")
	for k, v := range HeadersFor(p) { // what make site's header files say
		w.Header().Set(k, v)
	}
	w.Header().Add("Vary", "Accept-Encoding")
	data, err := h.gzipped(file, st.ModTime().UnixNano())
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	if acceptsGzip(r) {
		// A validator, as static hosts send: a worker's importScripts of
		// wasm_exec.js, say, is then answered 304 instead of the file
		// again for every worker.
		etag := fmt.Sprintf(`"%x-%x"`, st.ModTime().UnixNano(), len(data))
		w.Header().Set("ETag", etag)
		if r.Header.Get("If-None-Match") == etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("Content-Encoding", "gzip")
		w.Header().Set("Content-Length", fmt.Sprint(len(data)))
		if r.Method == http.MethodGet {
			w.Write(data)
		}
		return
	}
	http.ServeFile(w, r, file)
}

func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		if strings.TrimSpace(strings.SplitN(part, ";", 2)[0]) == "gzip" {
			return true
		}
	}
	return false
}

// gzipped returns a file's gzip: file.gz when it is at least as new as the
// file, else compressed here; cached while the file is unchanged.
func (h *handler) gzipped(file string, mod int64) ([]byte, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if e, ok := h.gzCache[file]; ok && e.mod == mod {
		return e.data, nil
	}
	if h.gzCache == nil {
		h.gzCache = map[string]gzEntry{}
	}
	if st, err := os.Stat(file + ".gz"); err == nil && st.ModTime().UnixNano() >= mod {
		if data, err := os.ReadFile(file + ".gz"); err == nil {
			h.gzCache[file] = gzEntry{mod, data}
			return data, nil
		}
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	zw.Write(raw)
	zw.Close()
	if h.gzCache == nil {
		h.gzCache = map[string]gzEntry{}
	}
	h.gzCache[file] = gzEntry{mod, b.Bytes()}
	return b.Bytes(), nil
}
