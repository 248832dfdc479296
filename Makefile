# nodetriage: collect and analyze EKS node bundles.
SHELL := /bin/bash
export PATH := $(PATH):/usr/local/go/bin

VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT  ?= $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
LDFLAGS := -s -w -X main.version=$(VERSION) -X main.commit=$(COMMIT)
GOFLAGS_BUILD := -trimpath -ldflags '$(LDFLAGS)'
FUZZTIME ?= 30s

.PHONY: all deps build test vet demo fuzz bench release clean

all: build

deps:
	@scripts/install-deps.sh

# collect: the cgo build reads the journal through libsystemd (sdjournal);
# collect-static is CGO_ENABLED=0 and reads it through journalctl.
# analyze needs no cgo and is fully static.
build: deps
	@mkdir -p bin
	go build $(GOFLAGS_BUILD) -o bin/collect ./cmd/collect
	CGO_ENABLED=0 go build $(GOFLAGS_BUILD) -o bin/collect-static ./cmd/collect
	CGO_ENABLED=0 go build $(GOFLAGS_BUILD) -o bin/analyze ./cmd/analyze

vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { echo "gofmt needed:"; gofmt -l $$(git ls-files '*.go'); exit 1; }
	go vet ./...
	CGO_ENABLED=0 go vet ./internal/journal/... ./cmd/collect/...

# All tests, fuzz seed corpora included; the journal package also runs without
# cgo so both journal backends are exercised.
test: deps vet
	go test -count=1 ./...
	CGO_ENABLED=0 go test -count=1 ./internal/journal/...

demo: build
	@scripts/demo.sh

fuzz:
	@scripts/fuzz.sh $(FUZZTIME)

bench: build
	@scripts/bench.sh

# Cross-built binaries and tarballs with SHA256SUMS in dist/ (no network).
release:
	@VERSION=$(VERSION) COMMIT=$(COMMIT) scripts/release.sh

clean:
	rm -rf bin out dist
