package app_test

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"counsel/adapters/blobfs"
	"counsel/app"
	"counsel/app/apptest"
)

// oldLayout turns the SQLite database at db into what the release before
// documents moved into the database left: every document's bytes a file
// under dataDir/documents written as that release wrote them (blobfs),
// its row naming the file's key, and no document tables, nor migrations
// 0018 and 0019. It returns each document's SHA-256 by id.
func oldLayout(t *testing.T, db, dataDir string) map[int64]string {
	t.Helper()
	is := is.New(t)
	conn, err := sql.Open("sqlite", "file:"+db+"?_pragma=foreign_keys(1)")
	is.NoErr(err)
	defer conn.Close()
	s, err := app.OpenStores(context.Background(), db, "")
	is.NoErr(err)
	defer s.Close()
	files, err := blobfs.Open(dataDir, rand.Reader)
	is.NoErr(err)
	rows, err := conn.Query(`SELECT id, storage_key, sha256 FROM contract_documents ORDER BY id`)
	is.NoErr(err)
	type doc struct {
		id       int64
		key, sum string
	}
	var docs []doc
	for rows.Next() {
		var d doc
		is.NoErr(rows.Scan(&d.id, &d.key, &d.sum))
		docs = append(docs, d)
	}
	is.NoErr(rows.Err())
	rows.Close()
	sums := map[int64]string{}
	for _, d := range docs {
		r, err := s.Blobs.Open(context.Background(), d.key)
		is.NoErr(err)
		st, err := files.Stage(context.Background(), r, 1<<30)
		r.Close()
		is.NoErr(err)
		is.Equal(st.SHA256(), d.sum) // the bytes the row describes
		key, err := st.Commit(context.Background())
		is.NoErr(err)
		_, err = conn.Exec(`UPDATE contract_documents SET storage_key = ? WHERE id = ?`, key, d.id)
		is.NoErr(err)
		sums[d.id] = d.sum
	}
	for _, q := range []string{`DROP TRIGGER contract_documents_bytes`, `DROP TABLE document_chunks`, `DROP TABLE document_blobs`,
		`DELETE FROM schema_migrations WHERE version IN (18, 19)`} {
		_, err := conn.Exec(q)
		is.NoErr(err)
	}
	return sums
}

// TestDocumentFilesMoveIntoTheDatabase: a database whose documents are
// files (originals, a signed PDF and an audit certificate, as the release
// before kept them) starts, moves every file into the database checking
// its SHA-256, and serves every download byte for byte; the files stay,
// and the log says they may be removed. A file missing, or one whose
// bytes differ, stops the start with a message naming it, and nothing is
// moved.
func TestDocumentFilesMoveIntoTheDatabase(t *testing.T) {
	if apptest.Engine() != "sqlite" {
		return // PostgreSQL always kept documents in the database
	}
	t.Parallel()
	is := is.New(t)
	dir := t.TempDir()
	db, data := filepath.Join(dir, "counsel.db"), filepath.Join(dir, "data")
	first := apptest.New(t, func(c *app.Config) { c.DB, c.DataDir = db, data })
	tok := first.Admin(t)
	id, _, sub := evidenceContract(t, first, tok)
	for i, p := range evidenceSigners {
		evidenceSign(t, first, sub.Submitters[i].EmbedSrc, p)
	}
	deadline := time.Now().Add(20 * time.Second)
	for evidenceKinds(evidenceDocuments(t, first, tok, id))["audit"] == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no signed evidence")
		}
		time.Sleep(50 * time.Millisecond)
	}
	first.Server.Close()
	is.NoErr(first.App.Close())

	sums := oldLayout(t, db, data)
	is.Equal(len(sums), 5) // three originals, the signed PDF, the certificate
	keys, err := os.ReadDir(filepath.Join(data, "documents"))
	is.NoErr(err)
	is.Equal(len(keys), 5)

	start := func() error {
		cfg := first.Config
		cfg.Stderr = nil
		a, err := app.New(context.Background(), cfg)
		if err == nil {
			a.Close()
		}
		return err
	}
	moved := func() int {
		conn, err := sql.Open("sqlite", "file:"+db)
		is.NoErr(err)
		defer conn.Close()
		var n int
		if err := conn.QueryRow(`SELECT count(*) FROM document_blobs`).Scan(&n); err != nil {
			return -1 // no table: the database is as it was
		}
		return n
	}
	t.Run("a missing file stops the start, naming it", func(t *testing.T) {
		is := is.New(t)
		gone := filepath.Join(data, "documents", keys[2].Name())
		b, err := os.ReadFile(gone)
		is.NoErr(err)
		is.NoErr(os.Remove(gone))
		err = start()
		is.True(err != nil)
		is.True(strings.Contains(err.Error(), gone) && strings.Contains(err.Error(), "missing")) // names the file
		is.Equal(moved(), 0)                                                                     // nothing moved
		is.NoErr(os.WriteFile(gone, b, 0o600))
	})
	t.Run("a file that differs stops the start, naming it", func(t *testing.T) {
		is := is.New(t)
		changed := filepath.Join(data, "documents", keys[4].Name())
		b, err := os.ReadFile(changed)
		is.NoErr(err)
		bad := append([]byte{}, b...)
		bad[len(bad)/2] ^= 1
		is.NoErr(os.WriteFile(changed, bad, 0o600))
		err = start()
		is.True(err != nil)
		is.True(strings.Contains(err.Error(), changed) && strings.Contains(err.Error(), "differs")) // names the file
		is.Equal(moved(), 0)                                                                        // nothing moved
		is.NoErr(os.WriteFile(changed, b, 0o600))
	})

	var logs syncBuffer
	next := apptest.New(t, func(c *app.Config) {
		c.DB, c.DataDir = db, data
		c.LogLevel, c.Stderr = "info", &logs
	})
	is.True(strings.Contains(logs.String(), "may be removed")) // the log says the files are no longer needed
	is.True(strings.Contains(logs.String(), "documents=5"))
	is.Equal(moved(), 5)
	tok = next.Admin(t)
	docs := evidenceDocuments(t, next, tok, id)
	is.Equal(evidenceKinds(docs), map[string]int{"original": 3, "signed": 1, "audit": 1})
	for _, d := range docs {
		r := next.Do(t, "GET", fmt.Sprintf("/api/contracts/%d/documents/%d/content", id, d.ID), tok, nil)
		is.Equal(r.Status, 200)
		is.Equal(fmt.Sprintf("%x", sha256.Sum256(r.Body)), sums[d.ID]) // every download byte for byte
	}
	done := evidenceSubmission(t, next, tok, id)
	var v evidenceVerification
	evidenceVerify(t, next, "signed.pdf", strings.NewReader(string(evidenceGet(t, next, *done.CombinedDocumentURL)))).JSON(t, &v)
	is.True(v.Valid) // the signed PDF still verifies
	left, err := os.ReadDir(filepath.Join(data, "documents"))
	is.NoErr(err)
	is.Equal(len(left), 5) // the files are left in place
}
