package site

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
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
