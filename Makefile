# Counsel: two commands for a newcomer (make run, make test) and a few more.
GO ?= go
BIN := bin/counsel
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)

.PHONY: run test build bench bench-contracts bench-lists bench-quiet fuzz fmt vet clean openapi

## run: build and start the service on ./counsel.db, or on COUNSEL_DB=postgres://... (first start creates admin@localhost)
run: build
	$(BIN) serve

## build: compile the static binary into bin/ (deploy/Dockerfile runs this too)
build:
	CGO_ENABLED=0 $(GO) build -ldflags "-X main.version=$(VERSION)" -o $(BIN) ./cmd/counsel

## test: vet, then at once the whole test suite with the race detector (fuzz seed corpora included)
## and the HTTP suite again on PostgreSQL (COUNSEL_TEST_POSTGRES; skipped when no server answers).
## The tests mostly wait (databases, HTTP), so the two passes overlap well even on two cores;
## TEST_PARALLEL tests of a package run at once (each PostgreSQL test holds a pool of up to 9
## connections; the server allows 100). The PostgreSQL pass prints when both are done.
## The tests' databases and files go to TEST_TMPDIR: memory (/dev/shm) where there is one, since a test's
## thousands of commits each wait for an fsync on a disk (the service's own files keep synchronous=FULL).
## The race detector runs on the first pass, which holds every package, the PostgreSQL adapter's own tests
## included (its refresh groups, locks and listeners); the HTTP suite's second pass, on PostgreSQL, runs the
## same use-case code again without it, which halves the suite's CPU on two cores.
## -race also turns on checkptr everywhere; modernc.org's SQLite, C translated to Go, spends a third of the
## suite's CPU in those checks of its own pointer arithmetic, so they are off for it alone (the race detector is not).
TEST_PARALLEL ?= 4
RACE := -race -gcflags=modernc.org/...=-d=checkptr=0
TEST_TMPDIR ?= $(shell [ -d /dev/shm ] && [ -w /dev/shm ] && echo /dev/shm || echo $${TMPDIR:-/tmp})
test: export TMPDIR = $(TEST_TMPDIR)
test:
	$(GO) vet ./...
	@pg=$$(mktemp); \
	COUNSEL_TEST_ENGINE=postgres $(GO) test -count=1 -timeout 20m -parallel $(TEST_PARALLEL) ./app ./adapters/console >$$pg 2>&1 & pid=$$!; \
	$(GO) test $(RACE) -count=1 -timeout 20m -parallel $(TEST_PARALLEL) ./...; all=$$?; \
	wait $$pid; app=$$?; \
	echo "--- the HTTP suite on PostgreSQL:"; cat $$pg; rm -f $$pg; \
	test $$all -eq 0 && test $$app -eq 0

## bench: the benchmarks (not part of make test)
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

## bench-contracts: the issue-17 list shapes over 100,000 contracts of each generated data shape (slow: seeds 200,000)
bench-contracts:
	$(GO) test -run '^$$' -bench ContractShapes -benchtime 100x -timeout 40m ./app

## bench-lists: the list shapes through the real server over 100,000 contracts of each data shape, on SQLite
## (and on PostgreSQL when COUNSEL_BENCH_PG is a server URL); slow: seeds 300,000 per engine
bench-lists:
	$(GO) build -o bin/counsel ./cmd/counsel
	for s in legal archive mixed; do $(GO) run ./tools/bench/listprobe -bin bin/counsel -shape $$s || exit 1; done
	if [ -n "$$COUNSEL_BENCH_PG" ]; then for s in legal archive mixed; do \
		$(GO) run ./tools/bench/listprobe -bin bin/counsel -shape $$s -pg "$$COUNSEL_BENCH_PG" || exit 1; done; fi

## bench-quiet: every figure of docs/performance.md's tables, old (5e4fffb or OLD=rev) against this tree (8-12 min)
bench-quiet:
	sh tools/bench/quiet.sh $(OLD)

## openapi: regenerate the API reference (adapters/http/openapi.json) after changing a route or a DTO;
## make test fails while it is out of date
openapi:
	COUNSEL_UPDATE_OPENAPI=1 $(GO) test -count=1 -run TestOpenAPIDocumentCurrent ./adapters/http

fmt:
	gofmt -w $$(git ls-files '*.go')

clean:
	rm -rf bin
