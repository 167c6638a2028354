# memplan: make serve (build the web app and serve it), make test (everything CI runs).
GO      ?= go
ADDR    ?= 127.0.0.1:8080
BUILD   ?= build
# The wasm tests run under Node with a browser worker's call stack, not
# the 8 MB Go's own runner gives: the planner runs in such a worker.
WASMEXEC := $(CURDIR)/tools/wasmexec/browser-stack
# Packages free of ebiten, whose tests also run compiled to wasm under Node.
WASM_TEST_PKGS ?= ./ir/... ./planner/... ./wasm/heap
# Benchmark instances: the full set beside the repo if present, else the copies in testdata.
BENCH_DATA ?= $(if $(wildcard ../shared/data),../shared/data,planner/testdata)

DIST    ?= dist

.PHONY: all build wasm serve site single npm framebench test test-host test-wasm ortoracle npmtest bench fmt vet clean

all: build

build: wasm
	$(GO) build -o $(BUILD)/memplan ./tools/memplan
	$(GO) build -o $(BUILD)/bench ./tools/bench

# The viewer: planner and canvas in one wasm; tools/serve adds web/ and wasm_exec.js.
wasm:
	@mkdir -p $(BUILD)
	$(GO) run ./tools/serve -build $(BUILD)/memplan.wasm  # the flags the tests build with, and gzip -9

serve: wasm
	$(GO) run ./tools/serve -addr $(ADDR) -wasm $(BUILD)/memplan.wasm

# The static site: app, viewer, embed.js, wasm (+ .gz), examples, docs page.
site:
	$(GO) run ./tools/serve -site $(DIST)

# The site and one self-contained page that opens from file://.
single:
	$(GO) run ./tools/serve -single $(DIST)/memplan.html

# The JavaScript package (npm/): dist/npm, which `npm pack` packs; offline.
npm:
	$(GO) run ./tools/npm -o $(DIST)/npm

# Frames per second while panning 100k buffers in headless Chromium, and page size.
framebench:
	$(GO) run ./tools/framebench

test: vet test-host test-wasm

# onnxruntime-node, the oracle of the ONNX decoder's shape tests: installed
# from the lock file (its CPU runtime ships inside the package, so no
# install script runs), again only when the lock file changes.
ORTORACLE := ir/onnx/ortoracle
ortoracle: $(ORTORACLE)/node_modules/.memplan-installed
$(ORTORACLE)/node_modules/.memplan-installed: $(ORTORACLE)/package.json $(ORTORACLE)/package-lock.json
	cd $(ORTORACLE) && npm ci --ignore-scripts --no-audit --no-fund
	touch $@

# TypeScript's compiler, which type-checks a user's file against the npm
# package's index.d.ts (tools/npm's tests): from npm/test's lock file.
NPMTEST := npm/test
npmtest: $(NPMTEST)/node_modules/.memplan-installed
$(NPMTEST)/node_modules/.memplan-installed: $(NPMTEST)/package.json $(NPMTEST)/package-lock.json
	cd $(NPMTEST) && npm ci --ignore-scripts --no-audit --no-fund
	touch $@

# Host tests; the drawing and browser tests need a display, given by xvfb-run.
# The browser tests (web/) take over go test's default ten minutes on a
# busy two-core machine: the limit is for hangs, not for speed.
test-host: ortoracle npmtest
	xvfb-run -a $(GO) test -count=1 -timeout 40m ./...

test-wasm:
	GOOS=js GOARCH=wasm $(GO) test -count=1 -short -exec="$(WASMEXEC)" $(WASM_TEST_PKGS)

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./ir/... ./planner/...
	$(GO) run ./tools/bench -data $(BENCH_DATA) -examples examples

fmt:
	gofmt -w $$(git ls-files '*.go')

vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt needed"; exit 1; }
	$(GO) vet ./...
	GOOS=js GOARCH=wasm $(GO) vet ./wasm/...

clean:
	rm -rf $(BUILD) $(DIST)
