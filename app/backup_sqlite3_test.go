package app_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matryer/is"

	"counsel/app/apptest"
	"counsel/app/transfer"
	"counsel/ports/porttest"
)

// TestBackupOpensInStockSQLite writes a backup of a service holding a
// contract and a document (from either engine) and opens it with the
// host's sqlite3 shell, the tool a firm has: PRAGMA integrity_check
// answers ok, the tables read, and its .dump loads into a new file with
// the same rows. The shell is the Debian package sqlite3 (.ci/run
// installs it); CI=true fails the test without it.
func TestBackupOpensInStockSQLite(t *testing.T) {
	shell, err := exec.LookPath("sqlite3")
	if err != nil {
		if os.Getenv("CI") == "true" || os.Getenv("COUNSEL_TEST_SQLITE3_REQUIRED") == "1" {
			t.Fatal("the sqlite3 shell is required here: apt-get install -y sqlite3")
		}
		t.Skip("sqlite3 not found: install the Debian package sqlite3 to run this test")
	}
	t.Parallel()
	is := is.New(t)
	s := apptest.New(t)
	tok := s.Admin(t)
	id := contractID(contractCreate(t, s, tok, map[string]any{"contractName": "Stock lease"}))
	contractUpload(t, s, tok, id, "lease.pdf", porttest.MinimalPDF(2)).Expect(t, 201, "upload")
	backup := filepath.Join(t.TempDir(), "backup.db")
	_, err = transfer.Backup(context.Background(), s.Config.DB, backup, transfer.BackupOptions{})
	is.NoErr(err)

	sh := func(file string, stdin []byte, args ...string) string {
		t.Helper()
		cmd := exec.Command(shell, append([]string{"-batch", "-bail", file}, args...)...)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if stdin != nil {
			cmd.Stdin = bytes.NewReader(stdin)
		}
		if err := cmd.Run(); err != nil || errb.Len() > 0 {
			t.Fatalf("sqlite3 %s %q: %v: %s", file, args, err, errb.String())
		}
		return strings.TrimSpace(out.String())
	}
	is.Equal(sh(backup, nil, "PRAGMA integrity_check"), "ok")
	const read = "SELECT (SELECT count(*) FROM contracts) || ' ' || (SELECT count(*) FROM contract_documents) || ' ' || (SELECT sum(length(data)) FROM document_chunks) || ' ' || (SELECT count(*) FROM users)"
	counts := sh(backup, nil, read)
	is.True(strings.HasPrefix(counts, "1 1 ")) // the contract and its document, bytes included
	dumped := filepath.Join(t.TempDir(), "dumped.db")
	sh(dumped, []byte(sh(backup, nil, ".dump")))
	is.Equal(sh(dumped, nil, "PRAGMA integrity_check"), "ok")
	is.Equal(sh(dumped, nil, read), counts) // the same rows
}
