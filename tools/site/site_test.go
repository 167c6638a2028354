package site

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestHandler(t *testing.T) {
	dir := t.TempDir()
	web := filepath.Join(dir, "web")
	os.MkdirAll(web, 0o755)
	os.WriteFile(filepath.Join(web, "index.html"), []byte("<!doctype html>hello"), 0o644)
	os.WriteFile(filepath.Join(web, "app.js"), []byte("console.log(1)"), 0o644)
	os.WriteFile(filepath.Join(web, "browser_test.go"), []byte("package web"), 0o644)
	os.WriteFile(filepath.Join(dir, "secret"), []byte("no"), 0o644)
	wasm := filepath.Join(dir, "m.wasm")
	os.WriteFile(wasm, []byte("\x00asm\x01\x00\x00\x00"), 0o644)
	srv := httptest.NewServer(Handler(web, wasm))
	defer srv.Close()

	get := func(path string, gz bool) (*http.Response, string) {
		req, _ := http.NewRequest("GET", srv.URL+path, nil)
		if gz {
			req.Header.Set("Accept-Encoding", "gzip")
		} else {
			req.Header.Set("Accept-Encoding", "identity")
		}
		// A bare transport: it neither asks for nor undoes gzip itself.
		resp, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var r io.Reader = resp.Body
		if resp.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(resp.Body)
			if err != nil {
				t.Fatalf("%s: bad gzip: %v", path, err)
			}
			r = zr
		}
		b, _ := io.ReadAll(r)
		return resp, string(b)
	}
	for _, c := range []struct {
		path, ctype, body string
	}{
		{"/", "text/html; charset=utf-8", "<!doctype html>hello"},
		{"/app.js", "text/javascript; charset=utf-8", "console.log(1)"},
		{"/memplan.wasm", "application/wasm", "\x00asm\x01\x00\x00\x00"},
	} {
		for _, gz := range []bool{true, false} {
			resp, body := get(c.path, gz)
			if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != c.ctype || body != c.body {
				t.Errorf("%s (gzip %v): %d %q %q", c.path, gz, resp.StatusCode, resp.Header.Get("Content-Type"), body)
			}
			if got := resp.Header.Get("Access-Control-Allow-Origin"); got != "*" {
				t.Errorf("%s: Access-Control-Allow-Origin %q; other origins' pages cannot load it", c.path, got)
			}
			if got := resp.Header.Get("Content-Encoding") == "gzip"; got != gz {
				t.Errorf("%s: gzip %v, asked %v", c.path, got, gz)
			}
		}
	}
	if resp, _ := get("/wasm_exec.js", true); resp.StatusCode != 200 {
		t.Errorf("wasm_exec.js: %d", resp.StatusCode)
	}
	for _, p := range []string{"/../secret", "/%2e%2e/secret", "/browser_test.go", "/nothing.html"} {
		if resp, _ := get(p, false); resp.StatusCode != 404 {
			t.Errorf("%s: %d, want 404", p, resp.StatusCode)
		}
	}
}

// A prebuilt file.gz is served when it is up to date, and ignored when the
// file is newer.
func TestHandlerPrefersFreshGz(t *testing.T) {
	dir := t.TempDir()
	wasm := filepath.Join(dir, "m.wasm")
	os.WriteFile(wasm, []byte("raw"), 0o644)
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte("from the .gz"))
	zw.Close()
	os.WriteFile(wasm+".gz", b.Bytes(), 0o644)
	now := time.Now()
	os.Chtimes(wasm, now, now)
	os.Chtimes(wasm+".gz", now, now)

	read := func() string {
		h := Handler(dir, wasm)
		req := httptest.NewRequest("GET", "/memplan.wasm", nil)
		req.Header.Set("Accept-Encoding", "gzip")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		zr, err := gzip.NewReader(rec.Body)
		if err != nil {
			t.Fatal(err)
		}
		out, _ := io.ReadAll(zr)
		return string(out)
	}
	if got := read(); got != "from the .gz" {
		t.Errorf("fresh .gz: served %q", got)
	}
	later := now.Add(time.Minute)
	os.Chtimes(wasm, later, later)
	if got := read(); got != "raw" {
		t.Errorf("stale .gz: served %q, want the file compressed afresh", got)
	}
}

func TestCounterCountsBodyBytesByPath(t *testing.T) {
	c := &Counter{Next: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(r.URL.Path + "!"))
	})}
	for _, p := range []string{"/a", "/bb", "/a"} {
		c.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", p, nil))
	}
	sent, total := c.Sent()
	if sent["/a"] != 6 || sent["/bb"] != 4 || len(sent) != 2 || total != 10 {
		t.Fatalf("sent %v, total %d; want /a 6, /bb 4, total 10", sent, total)
	}
}

// fakeRoot is a module tree with the files the site is made of, and
// some it must leave out.
func fakeRoot(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for name, body := range map[string]string{
		"web/index.html": "app", "web/viewer.html": "viewer", "web/embed.js": "embed", "web/app.css": "css",
		"web/browser_test.go": "package web", "web/testdata/big.onnx": "model",
		"web/lessons/index.json": "[]", "web/lessons/01-a.json": "{}", "web/lessons/m.onnx": "model",
		"web/lessons/LICENSE-m.txt": "MIT", "web/lessons/notes.md": "not for the site",
		"examples/mlp.json": "{}", "examples/examples.go": "package examples", "examples/plans/transformer.json": "{}",
		"docs/site/index.html": "docs", "docs/site/buffers.csv": "id,lower,upper,size", "docs/embedding.md": "md",
	} {
		p := filepath.Join(root, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestCopySite(t *testing.T) {
	root, out := fakeRoot(t), t.TempDir()
	if err := CopySite(root, out); err == nil || !strings.Contains(err.Error(), "memplan.wasm") {
		t.Fatalf("without the wasm built: %v, want an error naming it", err)
	}
	for _, name := range []string{"memplan.wasm", WorkerFile} {
		os.WriteFile(filepath.Join(out, name), []byte("\x00asm "+name), 0o644)
	}
	if err := CopySite(root, out); err != nil {
		t.Fatal(err)
	}
	var got []string
	filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(out, p)
			got = append(got, filepath.ToSlash(rel))
		}
		return nil
	})
	slices.Sort(got)
	want := []string{".htaccess", "_headers", "app.css", "docs/buffers.csv", "docs/index.html", "embed.js", "examples/mlp.json",
		"examples/plans/transformer.json", "index.html", "lessons/01-a.json", "lessons/LICENSE-m.txt", "lessons/index.json", "lessons/m.onnx", "memplan.wasm", "memplan.wasm.gz",
		WorkerFile, WorkerFile + ".gz", "viewer.html", "wasm_exec.js"}
	if !slices.Equal(got, want) {
		t.Errorf("site files\n%v\nwant\n%v", got, want)
	}
	zr, err := gzip.NewReader(bytes.NewReader(must(os.ReadFile(filepath.Join(out, "memplan.wasm.gz")))))
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := io.ReadAll(zr); string(b) != "\x00asm memplan.wasm" {
		t.Errorf("memplan.wasm.gz holds %q", b)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func TestSingle(t *testing.T) {
	in := SingleInputs{
		ViewerHTML: []byte("<body>\n<script src=\"wasm_exec.js\"></script>\n<script src=\"runtime.js\"></script>\n<script src=\"viewer.js\"></script>\n</body>"),
		ViewerJS:   []byte(`const s = "</script>"; start();`),
		RuntimeJS:  []byte(`class MemplanRuntime {}`),
		WorkerJS:   []byte(`importScripts("wasm_exec.js"); // </script>`),
		WasmExec:   []byte("class Go {}"),
		ViewerGz:   gzipBytes([]byte("viewer wasm")),
		PlannerGz:  gzipBytes([]byte("planner wasm")),
	}
	page, err := Single(in)
	if err != nil {
		t.Fatal(err)
	}
	s := string(page)
	if strings.Count(s, "</script>") != 3 || strings.Contains(s, `src="`) {
		t.Fatalf("the page still loads files, or a script ends early:\n%s", s)
	}
	for _, want := range []string{
		`"memplan.wasm": "` + base64.StdEncoding.EncodeToString(in.ViewerGz) + `"`,
		`"planner.wasm": "` + base64.StdEncoding.EncodeToString(in.PlannerGz) + `"`,
		`"worker.js": "class Go {}\nimportScripts(\"wasm_exec.js\"); // \u003c/script\u003e"`,
		`const s = "<\/script>"; start();`,
		`class MemplanRuntime {}`,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("the page lacks %s:\n%s", want, s)
		}
	}
	if _, err := Single(SingleInputs{ViewerHTML: []byte("<body></body>")}); err == nil {
		t.Error("a viewer.html without its scripts made a page")
	}
}

// TestHeadersFor: the app's pages are framed only by their own site, the
// viewer anywhere; every file is readable with CORS; and _headers says
// what the server sends.
func TestHeadersFor(t *testing.T) {
	tests := []struct {
		path     string
		framedOK bool
		wasmMIME bool
	}{
		{"/", false, false}, {"/index.html", false, false}, {"/learn.html", false, false}, {"/compare.html", false, false},
		{"/viewer.html", true, false}, {"/embed.js", true, false}, {"/docs/index.html", true, false}, {"/planner.wasm", true, true},
	}
	for _, tc := range tests {
		h := HeadersFor(tc.path)
		if h["Access-Control-Allow-Origin"] != "*" {
			t.Errorf("%s: no CORS", tc.path)
		}
		if framed := h["Content-Security-Policy"] == ""; framed != tc.framedOK {
			t.Errorf("%s: frame-ancestors %q", tc.path, h["Content-Security-Policy"])
		}
		if (h["Content-Type"] == "application/wasm") != tc.wasmMIME {
			t.Errorf("%s: Content-Type %q", tc.path, h["Content-Type"])
		}
	}
	if !strings.Contains(netlifyHeaders(), "/index.html\n  Content-Security-Policy: frame-ancestors 'self'\n") ||
		!strings.Contains(htaccess(), "AddType application/wasm .wasm") {
		t.Errorf("the header files do not say it:\n%s\n%s", netlifyHeaders(), htaccess())
	}
}
