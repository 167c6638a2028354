package site

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// The static site (make site) is plain files that any static host
// serves with no logic of its own: the app, the viewer, embed.js, the
// wasm programs with their gzip beside them (for hosts that serve
// precompressed files), the examples under examples/ and the docs page
// under docs/.

// pageExts are the files of web/ that belong to the site; the rest
// (tests, testdata) does not.
var pageExts = map[string]bool{".html": true, ".js": true, ".css": true}

// siteDirs are the folders of web/ whose data the pages fetch, and
// dataExts the files of them that belong to the site: learn.html's
// lessons (JSON), the models they plan (ONNX) and those models' licence
// notices, which travel with them.
var (
	siteDirs = []string{"lessons"}
	dataExts = []string{".json", ".onnx", ".txt"}
)

// BuildSite builds the wasm programs into out and copies the rest of the
// site from the module at root beside them.
func BuildSite(ctx context.Context, root, out string) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	if err := BuildWasm(ctx, root, filepath.Join(out, "memplan.wasm")); err != nil {
		return err
	}
	return CopySite(root, out)
}

// CopySite writes everything of the site but the wasm programs, which it
// expects in out already (BuildWasm), and gzips those where BuildWasm
// found no gzip tool.
func CopySite(root, out string) error {
	for _, name := range []string{"memplan.wasm", WorkerFile} {
		w := filepath.Join(out, name)
		if _, err := os.Stat(w); err != nil {
			return fmt.Errorf("the site needs %s built first: %v", name, err)
		}
		if err := ensureGzip(w); err != nil {
			return err
		}
	}
	ents, err := os.ReadDir(filepath.Join(root, "web"))
	if err != nil {
		return err
	}
	for _, e := range ents {
		if e.Type().IsRegular() && pageExts[filepath.Ext(e.Name())] {
			if err := copyFile(filepath.Join(root, "web", e.Name()), filepath.Join(out, e.Name())); err != nil {
				return err
			}
		}
	}
	// The folders of data the pages fetch (learn.html its lessons).
	for _, dir := range siteDirs {
		var files []string
		for _, ext := range dataExts {
			m, err := filepath.Glob(filepath.Join(root, "web", dir, "*"+ext))
			if err != nil {
				return err
			}
			files = append(files, m...)
		}
		if !slices.ContainsFunc(files, func(f string) bool { return filepath.Ext(f) == ".json" }) {
			return fmt.Errorf("the site needs web/%s: it holds no JSON files", dir)
		}
		for _, f := range files {
			if err := copyFile(f, filepath.Join(out, dir, filepath.Base(f))); err != nil {
				return err
			}
		}
	}
	if err := copyFile(WasmExec(), filepath.Join(out, "wasm_exec.js")); err != nil {
		return err
	}
	for _, dir := range []string{"examples", filepath.Join("examples", "plans")} {
		ex, err := filepath.Glob(filepath.Join(root, dir, "*.json"))
		if err != nil {
			return err
		}
		for _, f := range ex {
			if err := copyFile(f, filepath.Join(out, dir, filepath.Base(f))); err != nil {
				return err
			}
		}
	}
	// The headers static hosts send from files.
	for name, text := range map[string]string{"_headers": netlifyHeaders(), ".htaccess": htaccess()} {
		if err := os.WriteFile(filepath.Join(out, name), []byte(text), 0o644); err != nil {
			return err
		}
	}
	docs := filepath.Join(root, "docs", "site")
	return filepath.WalkDir(docs, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(docs, p)
		return copyFile(p, filepath.Join(out, "docs", rel))
	})
}

// ensureGzip writes file.gz unless an up-to-date one is there.
func ensureGzip(file string) error {
	st, err := os.Stat(file)
	if err != nil {
		return err
	}
	if gz, err := os.Stat(file + ".gz"); err == nil && !gz.ModTime().Before(st.ModTime()) {
		return nil
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	return os.WriteFile(file+".gz", gzipBytes(raw), 0o644)
}

func gzipBytes(raw []byte) []byte {
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	zw.Write(raw)
	zw.Close()
	return b.Bytes()
}

func copyFile(src, dst string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return os.WriteFile(dst, b, 0o644)
}

// WriteSingle writes the single-file viewer (make single) from a built
// site in dir to out.
func WriteSingle(dir, out string) error {
	read := func(name string) ([]byte, error) { return os.ReadFile(filepath.Join(dir, name)) }
	var in SingleInputs
	var err error
	for _, f := range []struct {
		name string
		dst  *[]byte
	}{
		{"viewer.html", &in.ViewerHTML}, {"viewer.js", &in.ViewerJS}, {"runtime.js", &in.RuntimeJS}, {"worker.js", &in.WorkerJS},
		{"wasm_exec.js", &in.WasmExec}, {"memplan.wasm.gz", &in.ViewerGz}, {WorkerFile + ".gz", &in.PlannerGz},
	} {
		if *f.dst, err = read(f.name); err != nil {
			return err
		}
	}
	page, err := Single(in)
	if err != nil {
		return err
	}
	return os.WriteFile(out, page, 0o644)
}

// SingleInputs are the files the single page is made of.
type SingleInputs struct {
	ViewerHTML, ViewerJS, RuntimeJS, WorkerJS, WasmExec []byte
	ViewerGz, PlannerGz                                 []byte // the wasm programs, gzipped
}

// Single is viewer.html with everything it loads inside it, so it opens
// from file:// with no network: the scripts inline, and window.
// memplanInline, which viewer.js reads instead of fetching, holding each
// wasm's gzip in base64 (the page unpacks it with DecompressionStream)
// and the worker's script, wasm_exec.js and worker.js, as text for a
// blob Worker.
func Single(in SingleInputs) ([]byte, error) {
	worker, err := json.Marshal(string(in.WasmExec) + "\n" + string(in.WorkerJS))
	if err != nil {
		return nil, err
	}
	var assets strings.Builder
	fmt.Fprintf(&assets, "window.memplanInline = {\n\"memplan.wasm\": %q,\n%q: %q,\n\"worker.js\": %s\n};",
		base64.StdEncoding.EncodeToString(in.ViewerGz), WorkerFile, base64.StdEncoding.EncodeToString(in.PlannerGz), worker)
	page := string(in.ViewerHTML)
	for _, s := range []struct{ tag, body string }{
		{`<script src="wasm_exec.js"></script>`, assets.String() + "\n" + string(in.WasmExec)},
		{`<script src="runtime.js"></script>`, string(in.RuntimeJS)},
		{`<script src="viewer.js"></script>`, string(in.ViewerJS)},
	} {
		if !strings.Contains(page, s.tag) {
			return nil, fmt.Errorf("viewer.html has no %s to inline", s.tag)
		}
		page = strings.Replace(page, s.tag, "<script>\n"+scriptSafe(s.body)+"\n</script>", 1)
	}
	return []byte(page), nil
}

// scriptSafe keeps a script's text from ending its <script> element
// early: "</script" becomes "<\/script", the same string to JavaScript.
func scriptSafe(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "</script", `<\/script`), "</SCRIPT", `<\/SCRIPT`)
}
