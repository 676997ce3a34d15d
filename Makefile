# fsmcp — build, test (with and without rg on PATH), bench, lint.
GO        ?= go
BIN       ?= bin/fsmcp
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS   := -s -w -X main.version=$(VERSION)
# v0.7.0 is staticcheck 2026.1; the proxy serves it by its module version.
STATICCHECK_VERSION ?= v0.7.0

# A second ripgrep major for the parity tests: ripgrep 14.1.1 ships as a
# plain file inside this npm package's tarball (vendor/ripgrep/<arch>-<os>/rg);
# `npm pack` fetches the tarball (integrity-checked) without installing or
# running anything from it.
RG14_NPM  ?= @anthropic-ai/claude-code@2.0.77
RG14      ?= bin/rg14/rg

# cross: the platforms fsmcp builds for (GOOS/GOARCH).
PLATFORMS ?= linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64
# staticcheck runs once per system (build tags differ by system, not by architecture).
STATICCHECK_OS ?= linux darwin windows

.PHONY: help build docs test test-unit test-norg redteam bench bench-catalog lint cross run clean test-rg14 conformance clients

## build: a static binary in bin/fsmcp
build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) .

## run: serve the current directory over stdio; stdout is the MCP stream, so make's
## command lines and the build's output go to stderr (from elsewhere, make -C DIR
## --no-print-directory run: -C alone prints "Entering directory" on stdout)
run:
	@$(MAKE) --no-print-directory build >&2
	@exec $(abspath $(BIN)) .

## help: the targets and what each does (from these ## comments)
help:
	@awk '/^## [A-Za-z0-9_.-]+:/ { sub(/^## /, ""); t = $$0; sub(/:.*/, "", t); d = $$0; sub(/^[^:]*: */, "", d); printf "  %-14s %s\n", t, d; more = 1; next } \
	  /^## / && more { sub(/^## /, ""); printf "  %-14s %s\n", "", $$0; next } { more = 0 }' $(MAKEFILE_LIST)

## test: unit tests, then the integration suite with rg on PATH and without it, then
## the mark3labs/mcp-go client (its own module, to keep mcp-go out of go.mod); each
## ends with every skipped test and its reason (internal/testsummary)
test:
	@command -v rg >/dev/null || echo "*** SKIPPED: rg is not installed; the with-rg half of the tests will not run (apt-get install ripgrep) ***"
	@$(GO) build -o bin/testsummary ./internal/testsummary
	bin/testsummary -count=1 -timeout 30m ./...
	@# integration/mcpgo is its own module (mcp-go stays out of go.mod); it builds
	@# fsmcp from the root and drives the binary over stdio and HTTP.
	cd integration/mcpgo && ../../bin/testsummary -count=1 -timeout 30m ./...

## docs: rewrite the manual's generated parts (docs/flags.md's table and --help's text from flags.go,
## docs/reference.md from the profiles' tables, README.md's tool table from fsmcp.Overview); make test fails when they differ
docs:
	UPDATE_DOCS=true $(GO) test -count=1 -run 'Documented' .

## redteam: the attack tests (races against swapped links, writers against writers, the shell's
## and trash's walls, hostile names) run FSMCP_REDTEAM times longer than in make test, three times over;
## the redteam build tag runs every integration test that calls attack(t), and only those
FSMCP_REDTEAM ?= 5
redteam:
	FSMCP_REDTEAM=$(FSMCP_REDTEAM) $(GO) test -tags redteam -count=3 -timeout 90m ./integration/

## test-norg: the integration suite with rg removed from PATH only
test-norg:
	FSMCP_TEST_MODES=norg $(GO) test -count=1 ./integration/...

## test-rg14: the rg/native parity tests against rg on PATH and ripgrep 14, then the integration suite with ripgrep 14 as rg
test-rg14: $(RG14)
	FSMCP_TEST_RG2=$(abspath $(RG14)) $(GO) test -count=1 -run 'TestFileTypes|TestParity' ./backend/driver/ ./backend/native/
	PATH=$(abspath $(dir $(RG14))):$$PATH FSMCP_TEST_MODES=rg $(GO) test -count=1 ./integration/...

$(RG14):
	@set -e; case "$$(uname -s)-$$(uname -m)" in \
	  Linux-x86_64) arch=x64-linux;; Linux-aarch64|Linux-arm64) arch=arm64-linux;; \
	  Darwin-x86_64) arch=x64-darwin;; Darwin-arm64) arch=arm64-darwin;; \
	  *) echo "$(RG14_NPM) has no ripgrep 14 for $$(uname -s)-$$(uname -m)"; exit 1;; \
	esac; \
	tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	npm pack --silent --cache "$$tmp/npm-cache" --pack-destination "$$tmp" $(RG14_NPM) >/dev/null; \
	tar -xzf "$$tmp"/*.tgz -C "$$tmp" package/vendor/ripgrep/$$arch/rg; \
	v=$$("$$tmp/package/vendor/ripgrep/$$arch/rg" --version); \
	case "$$v" in "ripgrep 14."*) ;; *) echo "not ripgrep 14: $$v"; exit 1;; esac; \
	mkdir -p $(@D); install -m 755 "$$tmp/package/vendor/ripgrep/$$arch/rg" $@; \
	set -- $$v; echo "$@: $$1 $$2"

## clients-deps: the pinned clients and the conformance suite (integration/clients, ~1.1 GB),
## installed when its lock file is newer than what is there
CLIENTS := integration/clients
$(CLIENTS)/node_modules/.package-lock.json: $(CLIENTS)/package-lock.json
	@command -v npm >/dev/null || { echo "npm is not installed: the client checks need Node.js 20+ and npm"; exit 1; }
	npm ci --prefix $(CLIENTS) --no-audit --no-fund --loglevel=error

## conformance: the MCP conformance suite's server scenarios that apply to fsmcp, against
## bin/fsmcp over Streamable HTTP (README, "Clients checked")
conformance: build $(CLIENTS)/node_modules/.package-lock.json
	node $(CLIENTS)/conformance.mjs $(BIN)

## clients: the Inspector CLI, mcp-remote, TypeScript SDK 1.0 and 1.10 connect and call tools
## (integration/clients_test.go), Claude Code, Codex and Gemini CLI with a scripted model
## (claudecode_test.go, codex_test.go, gemini_test.go, and their own tools through fsmcp's
## hooks: claudehooks_linux_test.go, codexhooks_linux_test.go, geminihooks_linux_test.go),
## then the mcp-go client, then the conformance suite
clients: $(CLIENTS)/node_modules/.package-lock.json
	$(GO) test -count=1 -run 'TestOldClients|TestInspectorCLI|TestMCPRemote|TestClaudeCode|TestCodex|TestGeminiCLI|TestCodexSessionUndoneThroughHooks|TestGeminiCLISessionUndoneThroughHooks' ./integration/
	cd integration/mcpgo && $(GO) test -count=1 -timeout 30m ./...
	@$(MAKE) --no-print-directory conformance

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

## bench-mono: issue 36's rows on 12 distinct copies of the Linux 6.12 source under one git init
## (cp --reflink=auto; about 1M files and 20 GB, built in $TMPDIR/fsmcp-bench-mono and removed
## afterwards): the index's cold build (time, size, peak temporary disk) and its update after
## touch on 2% of the files, then the queries through MCP with --index on (timed once each
## server's index is ready and its watcher follows the tree) against rg alone and rg on the answer
.PHONY: bench-mono
bench-mono:
	@test -f $(LINUX_TARBALL) || { $(SUDO) apt-get update && $(SUDO) apt-get install -y linux-source-6.12; }
	$(GO) run ./bench -trees mono -inprocess=false -runs 5 -index on -floor; s=$$?; rm -rf "$${TMPDIR:-/tmp}/fsmcp-bench-mono"; exit $$s

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

## windows-tests: unit test binaries for Windows (amd64; WINARCH=arm64 for ARM) in bin/windows/,
## to copy to a Windows machine and run there (no Go needed): .\\sandbox.test.exe -test.v
WINARCH       ?= amd64
WINDOWS_TESTS ?= sandbox backend backend/driver backend/ignore backend/pattern backend/queue backend/native files catalog internal/escape shell profiles/fsmcp
.PHONY: windows-tests
windows-tests:
	@mkdir -p bin/windows
	@set -e; for p in $(WINDOWS_TESTS); do \
	  CGO_ENABLED=0 GOOS=windows GOARCH=$(WINARCH) $(GO) test -c -o bin/windows/$$(echo $$p | tr / -).test.exe ./$$p; \
	  echo "bin/windows/$$(echo $$p | tr / -).test.exe"; done

## test-windows: the Windows suite under Wine (docs/install.md says what it proves): installs Debian's
## wine64 and MinGW-w64 where missing, makes a Wine prefix in bin/wine holding the stand-in
## bcryptprimitives.dll Go 1.26 programs need there (integration/wine), builds bin/windows/fsmcp.exe,
## then runs the TestWinPath unit tests and integration/windows (fsmcp.exe through the go-sdk client
## over stdio and HTTP) as Windows programs; tests that meet Wine's own gaps are skipped with the reason
WINE_PREFIX ?= $(CURDIR)/bin/wine
WINE_UNIT   ?= ./sandbox/ ./toolkit/ ./backend/native/
WINE_ENV     = WINEPREFIX=$(WINE_PREFIX) FSMCP_EXE=$(CURDIR)/bin/windows/fsmcp.exe CGO_ENABLED=0 GOOS=windows GOARCH=amd64
.PHONY: test-windows
test-windows:
	integration/wine/setup.sh $(WINE_PREFIX)
	CGO_ENABLED=0 GOOS=windows GOARCH=amd64 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o bin/windows/fsmcp.exe .
	@$(GO) build -o bin/testsummary ./internal/testsummary
	$(WINE_ENV) bin/testsummary -count=1 -timeout 10m -exec $(CURDIR)/integration/wine/exec.sh -run '^TestWinPath' $(WINE_UNIT)
	$(WINE_ENV) bin/testsummary -count=1 -timeout 30m -exec $(CURDIR)/integration/wine/exec.sh ./integration/windows/

clean:
	rm -rf bin

# --- Shipping: container image, its filesystem without an engine, release binaries.
# ENGINE: docker or podman, whichever answers first (make image ENGINE=podman to choose).
ENGINE    ?= $(shell for e in docker podman; do if command -v $$e >/dev/null 2>&1 && $$e info >/dev/null 2>&1; then echo $$e; break; fi; done)
IMAGE     ?= fsmcp:$(VERSION)
# A leading _ keeps the Debian tree (it holds Go files under /usr/share/doc)
# out of ./... for go build, vet and test.
ROOTFS    ?= build/_rootfs
DIST      ?= dist

.PHONY: image image-test image-rootfs release clean-ship npm npm-test server-json
NPM_OUT   ?= $(DIST)/npm

## image: the container image with docker or podman (podman: --format docker, keeping the
## HEALTHCHECK); where the Dockerfile's base images cannot be pulled, the same filesystem from
## Debian packages (image-rootfs's) is built into the engine as the image
image: build
	@test -n "$(ENGINE)" || { echo "make image: no container engine answers (docker or podman info fails), so no image was built; apt-get install podman, or 'make image-rootfs' builds and runs the image's filesystem without one" >&2; exit 1; }
	ENGINE=$(ENGINE) packaging/image.sh $(IMAGE) $(VERSION) $(BIN) $(ROOTFS)

## image-test: installs podman when no engine is present, builds the image and runs it: /healthz
## and the HEALTHCHECK, the token from FSMCP_AUTH_TOKEN, rg inside, fs_bash kept to /workspace,
## the non-root default, --user making edits the user's, the banner's address
image-test:
	@e="$(ENGINE)"; if [ -z "$$e" ]; then \
	  echo "make image-test: no container engine answers; installing podman" >&2; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq podman >/dev/null; e=podman; fi; \
	command -v debootstrap >/dev/null || DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq debootstrap >/dev/null; \
	$(MAKE) --no-print-directory image ENGINE=$$e IMAGE=fsmcp:image-test && \
	packaging/image-test.sh $$e fsmcp:image-test

## image-rootfs: the image's filesystem from Debian packages (root, debootstrap), then fsmcp run in it and checked over HTTP
image-rootfs: build
	packaging/rootfs.sh $(BIN) $(ROOTFS)
	packaging/rootfs-run.sh $(ROOTFS)

## release: static binaries for PLATFORMS in dist/, version stamped, with SHA256SUMS
release:
	GO=$(GO) packaging/release.sh $(VERSION) $(DIST) $(PLATFORMS)

## npm: the npm packages from `make release` as tarballs in dist/npm: fsmcp (a launcher,
## bin/fsmcp.js) and @fsmcp/<os>-<cpu> for the six platforms; VERSION must be semver
npm:
	@echo "$(VERSION)" | grep -Eq '^v?[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$$' || \
	  { echo "make npm: VERSION=$(VERSION) is not semver; npm needs one: make npm VERSION=1.2.3" >&2; exit 2; }
	@$(MAKE) --no-print-directory release VERSION=$(VERSION)
	npm/pack.sh $(VERSION) $(DIST) $(NPM_OUT)
	@$(MAKE) --no-print-directory server-json VERSION=$(VERSION)

## server-json: the MCP Registry entry for release VERSION in dist/server.json: server.json with
## VERSION as the entry's, the npm package's and the image's tag (make npm runs it); publish it
## with mcp-publisher publish dist/server.json once the npm packages and the image are out
server-json:
	@mkdir -p $(DIST)
	$(GO) run ./packaging/serverjson $(VERSION) server.json $(DIST)/server.json

## npm-test: make npm, then all seven tarballs offered to npm install --offline in an empty
## directory, npx fsmcp run and the TypeScript client connected through it (make test packs
## and checks the host's package only)
npm-test: npm
	FSMCP_NPM_DIR=$(abspath $(NPM_OUT)) $(GO) test -count=1 -run TestNPM ./integration/

clean-ship:
	rm -rf $(DIST) build
