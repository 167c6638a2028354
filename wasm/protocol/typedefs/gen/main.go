// Command gen writes the protocol's JSDoc typedefs (typedefs.JSDoc) to the
// file it is given: go generate ./wasm/protocol/typedefs.
package main

import (
	"log"
	"os"

	"memplan/wasm/protocol/typedefs"
)

func main() {
	if len(os.Args) != 2 {
		log.Fatal("usage: gen FILE")
	}
	if err := os.WriteFile(os.Args[1], []byte(typedefs.JSDoc()), 0o644); err != nil {
		log.Fatal(err)
	}
}
