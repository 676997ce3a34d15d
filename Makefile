# fsmcp — build, test (with and without rg on PATH), bench, lint.
GO        ?= go
BIN       ?= bin/fsmcp
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS   := -s -w -X main.version=$(VERSION)
# v0.7.0 is staticcheck 2026.1; the proxy serves it by its module version.
STATICCHECK_VERSION ?= v0.7.0

.PHONY: build test test-unit test-norg bench bench-catalog lint run clean

## build: a static binary in bin/fsmcp
build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) .

## run: serve the current directory over stdio
run: build
	./$(BIN) .

## test: unit tests, then the integration suite with rg on PATH and without it
test:
	@command -v rg >/dev/null || echo "*** SKIPPED: rg is not installed; the with-rg half of the tests will not run (apt-get install ripgrep) ***"
	$(GO) test -count=1 ./...

## test-norg: the integration suite with rg removed from PATH only
test-norg:
	FSMCP_TEST_MODES=norg $(GO) test -count=1 ./integration/...

## bench: search timings of rg, fsmcp's rg backend and its native backend; the catalog's time
bench: bench-catalog
	$(GO) run ./bench

## bench-linux: issue 14's queries on the Linux 6.12 source through MCP (rg -c alone, fsmcp
## with rg, fsmcp native); installs Debian's linux-source-6.12 when missing and unpacks it
## into $TMPDIR/fsmcp-bench-linux on first use
LINUX_TARBALL := /usr/src/linux-source-6.12.tar.xz
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
.PHONY: bench-linux
bench-linux:
	@test -f $(LINUX_TARBALL) || { $(SUDO) apt-get update && $(SUDO) apt-get install -y linux-source-6.12; }
	$(GO) run ./bench -trees linux -inprocess=false -runs 5

## bench-catalog: fs_catalog on a generated 100,000-file tree (median of 7 runs, peak heap)
bench-catalog:
	$(GO) run ./bench/catalog -runs 7

## lint: gofmt, go vet, staticcheck
lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION) ./...

clean:
	rm -rf bin
