// Command gen writes the protocol's JSDoc typedefs (typedefs.JSDoc), or
// with -ts the npm package's index.d.ts (typedefs.TypeScript), to the
// file it is given: go generate ./wasm/protocol/typedefs.
package main

import (
	"flag"
	"log"
	"os"

	"memplan/wasm/protocol/typedefs"
)

func main() {
	ts := flag.Bool("ts", false, "write the npm package's TypeScript declarations")
	flag.Parse()
	if flag.NArg() != 1 {
		log.Fatal("usage: gen [-ts] FILE")
	}
	text := typedefs.JSDoc()
	if *ts {
		text = typedefs.TypeScript()
	}
	if err := os.WriteFile(flag.Arg(0), []byte(text), 0o644); err != nil {
		log.Fatal(err)
	}
}
