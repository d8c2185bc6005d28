// Command seed fills a Counsel database with generated contracts of one
// of contractgen's shapes, for looking at query plans and timing lists
// by hand:
//
//	go run ./tools/bench/seed -db /tmp/legal.db -shape legal -n 100000
//	sqlite3 /tmp/legal.db 'EXPLAIN QUERY PLAN SELECT ...'
//
// The database is created and migrated if it does not exist; the
// contracts are added to any already there. With -docs, that many
// documents of -docsize bytes each (random bytes framed as a PDF, as an
// upload would pass) are added through the contract store, one to each of
// the first contracts added, for timing backups (tools/bench/backup.sh).
package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"time"

	"counsel/adapters/sqlite"
	"counsel/domain/contract"
	"counsel/ports"
	"counsel/tools/bench/contractgen"
)

func main() {
	path := flag.String("db", "counsel-bench.db", "database file")
	shape := flag.String("shape", "legal", "data shape: legal or archive")
	n := flag.Int("n", 100_000, "number of contracts")
	seed := flag.Uint64("seed", 1, "random seed")
	docs := flag.Int("docs", 0, "number of documents to add")
	docSize := flag.Int("docsize", 2<<20, "bytes of each document")
	flag.Parse()
	var d contractgen.Shape
	for _, s := range contractgen.Shapes() {
		if s.Name == *shape {
			d = s
		}
	}
	if d.Name == "" {
		log.Fatalf("unknown shape %q", *shape)
	}
	ctx := context.Background()
	db, err := sqlite.Open(ctx, *path)
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	store := sqlite.NewContractStore(db)
	var first int64
	if err := db.Read().QueryRowContext(ctx, `SELECT coalesce(max(id), 0) + 1 FROM contracts`).Scan(&first); err != nil {
		log.Fatal(err)
	}
	t0 := time.Now()
	if err := store.ImportContracts(ctx, d.Make(*n, *seed, time.Now().UTC()), 1); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d %s contracts in %s (common word %q, rare word %q, status %s)\n",
		*n, d.Name, time.Since(t0).Round(time.Millisecond), d.Common, d.Rare, d.Status)
	if *docs == 0 {
		return
	}
	t0 = time.Now()
	rnd := rand.New(rand.NewChaCha8([32]byte{byte(*seed)}))
	body := make([]byte, *docSize)
	for i := range *docs {
		pdfLike(rnd, body)
		sum := sha256.Sum256(body)
		_, err := store.AddDocument(ctx, ports.NewDocument{Document: contract.Document{
			ContractID: first + int64(i%*n), FileName: fmt.Sprintf("document-%d.pdf", i+1), ContentType: contract.ContentTypePDF,
			Size: int64(len(body)), SHA256: hex.EncodeToString(sum[:]), UploadedAt: time.Now().UTC(), UploadedBy: 1,
		}, Body: bytes.NewReader(body)}, nil, nil)
		if err != nil {
			log.Fatal(err)
		}
	}
	fmt.Printf("%d documents of %d bytes in %s\n", *docs, *docSize, time.Since(t0).Round(time.Millisecond))
}

// pdfLike fills b with random bytes framed as a PDF: the header a
// document's type is recognised by, and the end-of-file marker.
func pdfLike(rnd *rand.Rand, b []byte) {
	for i := 0; i+8 <= len(b); i += 8 {
		binary.LittleEndian.PutUint64(b[i:], rnd.Uint64())
	}
	copy(b, "%PDF-1.4\n")
	copy(b[max(0, len(b)-7):], "\n%%EOF\n")
}
