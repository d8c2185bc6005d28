// Package pgtest gives tests a PostgreSQL schema of their own on the
// server COUNSEL_TEST_POSTGRES names, so tests run in parallel and leave
// nothing behind. Without a server the test is skipped, unless
// COUNSEL_TEST_POSTGRES_REQUIRED=1 (CI), which fails it instead.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// DefaultURL is the server of the development machines and CI.
const DefaultURL = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"

// ServerURL returns COUNSEL_TEST_POSTGRES or DefaultURL.
func ServerURL() string {
	if u := os.Getenv("COUNSEL_TEST_POSTGRES"); u != "" {
		return u
	}
	return DefaultURL
}

// Required reports whether a missing server fails tests (CI).
func Required() bool { return os.Getenv("COUNSEL_TEST_POSTGRES_REQUIRED") == "1" }

var (
	once     sync.Once
	reachErr error
)

// prepare checks the server once and installs pg_trgm in public, so that
// schemas made here find it on their search path.
func prepare() error {
	once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, ServerURL())
		if err != nil {
			reachErr = err
			return
		}
		defer conn.Close(ctx)
		_, reachErr = conn.Exec(ctx, `CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public`)
	})
	return reachErr
}

// Available reports whether the server answers (without skipping).
func Available() bool { return prepare() == nil }

// Skip skips t (or fails it when a server is required) unless the server
// answers.
func Skip(t testing.TB) {
	t.Helper()
	if err := prepare(); err != nil {
		if Required() {
			t.Fatalf("COUNSEL_TEST_POSTGRES_REQUIRED=1 but PostgreSQL at %s does not answer: %v", ServerURL(), err)
		}
		t.Skipf("PostgreSQL at %s does not answer (%v); set COUNSEL_TEST_POSTGRES to run these tests", ServerURL(), err)
	}
}

// URL creates an empty schema for t and returns a URL whose connections
// use it; the schema is dropped when t ends.
func URL(t testing.TB) string {
	t.Helper()
	Skip(t)
	var b [6]byte
	rand.Read(b[:])
	schema := "counsel_t_" + hex.EncodeToString(b[:])
	ctx := context.Background()
	exec(t, ctx, `CREATE SCHEMA `+schema)
	t.Cleanup(func() { exec(t, context.Background(), `DROP SCHEMA `+schema+` CASCADE`) })
	u, err := url.Parse(ServerURL())
	if err != nil {
		t.Fatalf("COUNSEL_TEST_POSTGRES: %v", err)
	}
	v := u.Query()
	v.Set("search_path", schema+",public")
	u.RawQuery = v.Encode()
	return u.String()
}

func exec(t testing.TB, ctx context.Context, sql string) {
	t.Helper()
	conn, err := pgx.Connect(ctx, ServerURL())
	if err != nil {
		t.Fatalf("connect to PostgreSQL: %v", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}
