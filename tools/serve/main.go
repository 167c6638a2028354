// Command serve builds the memplan viewer for the browser and serves the
// web app:
//
//	go run ./tools/serve                 # http://127.0.0.1:8080/
//	go run ./tools/serve -addr 127.0.0.1:9000
//	go run ./tools/serve -wasm out/memplan.wasm   # serve a prebuilt wasm
//	go run ./tools/serve -build out/memplan.wasm  # only build it (and its .gz)
//
// ADDR in the environment sets the default address. Without -wasm it runs
// `go build` for GOOS=js GOARCH=wasm into the user cache directory first.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"path/filepath"

	"memplan/tools/serve/site"
)

func main() {
	addr := os.Getenv("ADDR")
	if addr == "" {
		addr = "127.0.0.1:8080"
	}
	flag.StringVar(&addr, "addr", addr, "address to listen on")
	wasm := flag.String("wasm", "", "prebuilt viewer wasm (default: build it)")
	build := flag.String("build", "", "build the viewer wasm and its gzip to this file, and exit")
	flag.Parse()

	wd, _ := os.Getwd()
	root, err := site.ModuleRoot(wd)
	if err != nil {
		log.Fatal(err)
	}
	if *build != "" {
		if err := site.BuildWasm(context.Background(), root, *build); err != nil {
			log.Fatal(err)
		}
		return
	}
	if *wasm == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			cache = os.TempDir()
		}
		dir := filepath.Join(cache, "memplan")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			log.Fatal(err)
		}
		*wasm = filepath.Join(dir, "memplan.wasm")
		fmt.Println("building the viewer wasm…")
		if err := site.BuildWasm(context.Background(), root, *wasm); err != nil {
			log.Fatal(err)
		}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("memplan: serving on http://%s/\n", ln.Addr())
	log.Fatal(http.Serve(ln, site.Handler(filepath.Join(root, "web"), *wasm)))
}
