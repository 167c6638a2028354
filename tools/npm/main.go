// Command npm writes memplan's JavaScript package (make npm): a folder
// that `npm pack` turns into the package "memplan", built offline from
// this repository. The module (npm/index.mjs, npm/worker.mjs) runs the
// planner worker's wasm, the browser app's own (wasm/worker), beside Go's
// wasm_exec.js; index.d.ts is written from Go's types
// (typedefs.TypeScript). The README states the package's weight,
// gzipped, as measured here.
//
//	go run ./tools/npm -o dist/npm
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"

	"memplan/tools/npm/npmpkg"
	"memplan/tools/site"
)

func main() {
	out := flag.String("o", "dist/npm", "the package's `folder`")
	flag.Parse()
	root, err := os.Getwd()
	if err == nil {
		root, err = site.ModuleRoot(root)
	}
	if err != nil {
		log.Fatal(err)
	}
	w, err := npmpkg.Build(context.Background(), root, *out)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: %s gzipped (planner.wasm %s, the rest %s)\n", *out, npmpkg.KB(w.Total), npmpkg.KB(w.Wasm), npmpkg.KB(w.Total-w.Wasm))
}
