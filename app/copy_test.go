package app_test

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matryer/is"

	"counsel/adapters/postgres/pgtest"
	"counsel/app"
	"counsel/app/apptest"
	"counsel/app/transfer"
	"counsel/domain/account"
	"counsel/ports/porttest"
)

// TestCopyBetweenEngines copies a SQLite database to PostgreSQL and back
// to a new SQLite file, then serves the result: the same users, sign-in,
// contracts with their history, documents byte for byte, and new ids
// after the old ones.
func TestCopyBetweenEngines(t *testing.T) {
	pgtest.Skip(t)
	is := is.New(t)
	ctx := context.Background()
	src := apptest.New(t, func(c *app.Config) { c.DB = filepath.Join(t.TempDir(), "src.db"); c.SpoolDir = "" })
	admin := src.Admin(t)
	src.User(t, account.ContractView)
	id := contractID(contractCreate(t, src, admin, map[string]any{"contractName": "Copied lease", "amount": "1234.50"}))
	is.Equal(src.Do(t, "PUT", fmt.Sprintf("/api/contracts/%d", id), admin, map[string]any{"comments": "second entry"}).Status, 200)
	pdf := porttest.MinimalPDF(3)
	is.Equal(contractUpload(t, src, admin, id, "lease.pdf", pdf).Status, 201)
	is.Equal(src.Do(t, "DELETE", fmt.Sprintf("/api/contracts/%d", contractID(contractCreate(t, src, admin, map[string]any{"contractName": "gone"}))), admin, nil).Status, 204)

	pg := pgtest.URL(t)
	var out bytes.Buffer
	is.NoErr(transfer.Copy(ctx, src.Config.DB, pg, transfer.CopyOptions{FromDataDir: src.Config.DataDir, Progress: &out}))
	is.True(strings.Contains(out.String(), "contracts: 1/1"))      // a progress line
	is.True(strings.Contains(out.String(), "copied and verified")) // verified
	err := transfer.Copy(ctx, src.Config.DB, pg, transfer.CopyOptions{FromDataDir: src.Config.DataDir})
	is.True(err != nil && strings.Contains(err.Error(), "not empty")) // refuses a non-empty target

	back := filepath.Join(t.TempDir(), "back.db")
	is.NoErr(transfer.Copy(ctx, pg, back, transfer.CopyOptions{}))

	// Each served with a data folder of its own: the documents are in
	// the database.
	for _, tt := range []struct {
		name string
		dsn  string
	}{{"postgres", pg}, {"sqlite again", back}} {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			s := apptest.New(t, func(c *app.Config) { c.DB = tt.dsn })
			tok := s.Admin(t) // the administrator's password came along
			r := s.Do(t, "GET", fmt.Sprintf("/api/contracts/%d", id), tok, nil)
			is.Equal(r.Status, 200)
			is.Equal(r.Map(t)["amount"], src.Do(t, "GET", fmt.Sprintf("/api/contracts/%d", id), admin, nil).Map(t)["amount"])
			var hist struct{ Count int64 }
			s.Do(t, "GET", fmt.Sprintf("/api/contracts/%d/history", id), tok, nil).JSON(t, &hist)
			is.Equal(hist.Count, int64(3)) // created, updated, document added
			var docs struct{ Items []struct{ ID int64 } }
			s.Do(t, "GET", fmt.Sprintf("/api/contracts/%d/documents", id), tok, nil).JSON(t, &docs)
			is.Equal(len(docs.Items), 1)
			got := s.Do(t, "GET", fmt.Sprintf("/api/contracts/%d/documents/%d/content", id, docs.Items[0].ID), tok, nil)
			is.Equal(got.Status, 200)
			is.True(bytes.Equal(got.Body, pdf)) // the same bytes
			var found struct{ Count int64 }
			s.Do(t, "GET", "/api/contracts?Search=leas", tok, nil).JSON(t, &found)
			is.Equal(found.Count, int64(1)) // the search finds copied text (SQLite: its word list is filled)
			for _, q := range []string{"Search=lease", "Search=Lease&Status=Draft"} {
				s.Do(t, "GET", "/api/contracts?"+q, tok, nil).JSON(t, &found)
				is.Equal(found.Count, int64(1)) // a whole word's count, read from the word counts, came along
			}
			s.Do(t, "GET", "/api/contracts?Status=Draft", tok, nil).JSON(t, &found)
			is.Equal(found.Count, int64(1)) // the per-status counts came along
			next := contractID(contractCreate(t, s, tok, map[string]any{"contractName": "after the copy"}))
			is.True(next > id+1) // the deleted contract's id is not given again, on either engine
		})
	}
}

// BenchmarkCopy100k measures counsel copy of 100,000 contracts with their
// history from SQLite to PostgreSQL.
func BenchmarkCopy100k(b *testing.B) {
	pgtest.Skip(b)
	src := apptest.New(b, func(c *app.Config) { c.DB = filepath.Join(b.TempDir(), "src.db"); c.SpoolDir = "" })
	if err := src.App.Stores().Contracts.ImportContracts(context.Background(), benchContracts(100_000), 1); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		var out bytes.Buffer
		if err := transfer.Copy(context.Background(), src.Config.DB, pgtest.URL(b), transfer.CopyOptions{FromDataDir: src.Config.DataDir, Progress: &out}); err != nil {
			b.Fatal(err)
		}
		b.Log(out.String())
	}
}
