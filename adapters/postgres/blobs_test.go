package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/matryer/is"

	"counsel/adapters/postgres/pgtest"
)

// TestMigration0019: bytes an earlier release left without a row (kept in
// their own transaction, the row never written) go once they are an hour
// old; a younger one stays (an instance of that release may still be
// between its bytes and its row), and so do the bytes rows name. From
// then on, deleting a row, or its contract, deletes its bytes.
func TestMigration0019(t *testing.T) {
	pgtest.Skip(t)
	is := is.New(t)
	ctx := context.Background()
	url := pgtest.URL(t)
	db, err := Open(ctx, url)
	is.NoErr(err)
	// The database as the release before 0019 left it.
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.pool.Exec(ctx, q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec(`DROP TRIGGER contract_documents_bytes ON contract_documents`)
	exec(`DROP FUNCTION contract_documents_bytes()`)
	exec(`DELETE FROM schema_migrations WHERE version = 19`)
	exec(`INSERT INTO users (id, email, first_name, last_name, created_at, updated_at) VALUES (1, 'a@example.com', 'A', '', now(), now())`)
	exec(`INSERT INTO contracts (id, uuid, contract_name, contract_type, status, created_at, updated_at) VALUES (1, 'u1', 'One', 0, 0, now(), now())`)
	exec(`INSERT INTO contract_documents (id, contract_id, file_name, content_type, size, sha256, storage_key, uploaded_at, uploaded_by)
		VALUES (1, 1, 'a.pdf', 'application/pdf', 2, '', 'named', now(), 1), (2, 1, 'b.pdf', 'application/pdf', 2, '', 'second', now(), 1)`)
	for key, age := range map[string]time.Duration{"named": 48 * time.Hour, "second": 48 * time.Hour, "old-orphan": 2 * time.Hour, "young-orphan": time.Minute} {
		exec(`INSERT INTO document_blobs (storage_key, size, created_at) VALUES ($1, 2, $2)`, key, time.Now().Add(-age))
		exec(`INSERT INTO document_chunks (storage_key, seq, data) VALUES ($1, 0, '\x0102')`, key)
	}
	db.Close()

	db, err = Open(ctx, url)
	is.NoErr(err)
	defer db.Close()
	keys := func() []string {
		rows, err := db.pool.Query(ctx, `SELECT b.storage_key || ':' || (SELECT count(*) FROM document_chunks c WHERE c.storage_key = b.storage_key)
			FROM document_blobs b ORDER BY 1`)
		is.NoErr(err)
		got, err := pgx.CollectRows(rows, pgx.RowTo[string])
		is.NoErr(err)
		return got
	}
	is.Equal(keys(), []string{"named:1", "second:1", "young-orphan:1"})
	var chunks int
	is.NoErr(db.pool.QueryRow(ctx, `SELECT count(*) FROM document_chunks WHERE storage_key = 'old-orphan'`).Scan(&chunks))
	is.Equal(chunks, 0)
	_, err = db.pool.Exec(ctx, `DELETE FROM contract_documents WHERE id = 2`)
	is.NoErr(err)
	is.Equal(keys(), []string{"named:1", "young-orphan:1"})
	_, err = db.pool.Exec(ctx, `DELETE FROM contracts WHERE id = 1`) // its documents by cascade
	is.NoErr(err)
	is.Equal(keys(), []string{"young-orphan:1"})
}
