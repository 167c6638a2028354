// Command serve builds the memplan viewer for the browser and serves the
// web app:
//
//	go run ./tools/serve                 # http://127.0.0.1:8080/
//	go run ./tools/serve -addr 127.0.0.1:9000
//	go run ./tools/serve -wasm out/memplan.wasm   # serve a prebuilt wasm
//	go run ./tools/serve -build out/memplan.wasm  # only build it (and its .gz)
//	go run ./tools/serve -site dist               # write the static site (make site)
//	go run ./tools/serve -single dist/memplan.html # and the single-file viewer (make single)
//	go run ./tools/serve -dist dist               # serve a written site
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

	"memplan/tools/site"
)

func main() {
	addr := os.Getenv("ADDR")
	if addr == "" {
		addr = "127.0.0.1:8080"
	}
	flag.StringVar(&addr, "addr", addr, "address to listen on")
	wasm := flag.String("wasm", "", "prebuilt viewer wasm (default: build it)")
	build := flag.String("build", "", "build the viewer wasm and its gzip to this file, and exit")
	siteDir := flag.String("site", "", "write the static site to this folder, and exit")
	single := flag.String("single", "", "write the static site beside this file and the single-file viewer to it, and exit")
	dist := flag.String("dist", "", "serve this written site (see -site) instead of web/")
	flag.Parse()

	wd, _ := os.Getwd()
	root, err := site.ModuleRoot(wd)
	if err != nil {
		log.Fatal(err)
	}
	if *siteDir != "" || *single != "" {
		dir := *siteDir
		if dir == "" {
			dir = filepath.Dir(*single)
		}
		if err := site.BuildSite(context.Background(), root, dir); err != nil {
			log.Fatal(err)
		}
		if *single != "" {
			if err := site.WriteSingle(dir, *single); err != nil {
				log.Fatal(err)
			}
		}
		return
	}
	web := filepath.Join(root, "web")
	if *dist != "" {
		web, *wasm = *dist, filepath.Join(*dist, "memplan.wasm")
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
	log.Fatal(http.Serve(ln, site.Handler(web, *wasm)))
}
