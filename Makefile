# Counsel: two commands for a newcomer (make run, make test) and a few more.
GO ?= go
BIN := bin/counsel
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)

.PHONY: run test build bench bench-contracts bench-quiet fuzz fmt vet clean

## run: build and start the service on ./counsel.db, or on COUNSEL_DB=postgres://... (first start creates admin@localhost)
run: build
	$(BIN) serve

## build: compile the binary into bin/
build:
	$(GO) build -ldflags "-X main.version=$(VERSION)" -o $(BIN) ./cmd/counsel

## test: vet, the whole test suite with the race detector (fuzz seed corpora included), then the
## HTTP suite again on PostgreSQL (COUNSEL_TEST_POSTGRES; skipped when no server answers)
test:
	$(GO) vet ./...
	$(GO) test -race -count=1 -timeout 20m ./...
	COUNSEL_TEST_ENGINE=postgres $(GO) test -race -count=1 -timeout 20m ./app

## bench: the benchmarks (not part of make test)
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

## bench-contracts: the issue-17 list shapes over 100,000 contracts of each generated data shape (slow: seeds 200,000)
bench-contracts:
	$(GO) test -run '^$$' -bench ContractShapes -benchtime 100x -timeout 40m ./app

## bench-quiet: every figure of the README's performance tables, old (5e4fffb or OLD=rev) against this tree (8-12 min)
bench-quiet:
	sh tools/bench/quiet.sh $(OLD)

fmt:
	gofmt -w $$(git ls-files '*.go')

clean:
	rm -rf bin
