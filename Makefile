# fsmcp — build, test (with and without rg on PATH), bench, lint.
GO        ?= go
BIN       ?= bin/fsmcp
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS   := -s -w -X main.version=$(VERSION)
# v0.7.0 is staticcheck 2026.1; the proxy serves it by its module version.
STATICCHECK_VERSION ?= v0.7.0

# cross: the platforms fsmcp builds for (GOOS/GOARCH).
PLATFORMS ?= linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64
# staticcheck runs once per system (build tags differ by system, not by architecture).
STATICCHECK_OS ?= linux darwin windows

.PHONY: build test test-unit test-norg bench bench-catalog lint cross run clean

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

## bench-catalog: fs_catalog on a generated 100,000-file tree (median of 7 runs, peak heap)
bench-catalog:
	$(GO) run ./bench/catalog -runs 7

## lint: gofmt; go vet and staticcheck for each system; the cross build
lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	@$(MAKE) --no-print-directory cross
	GOBIN=$(CURDIR)/bin $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	@set -e; for os in $(STATICCHECK_OS); do echo "staticcheck GOOS=$$os"; GOOS=$$os bin/staticcheck ./...; done

## cross: build (CGO_ENABLED=0) and go vet, tests included, for every platform in PLATFORMS
cross:
	@set -e; for p in $(PLATFORMS); do echo "cross $$p"; \
	  CGO_ENABLED=0 GOOS=$${p%/*} GOARCH=$${p#*/} $(GO) build ./... ; \
	  CGO_ENABLED=0 GOOS=$${p%/*} GOARCH=$${p#*/} $(GO) vet ./... ; done

clean:
	rm -rf bin
