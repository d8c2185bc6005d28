// Package sqlitetest checks a Counsel SQLite file with the host's stock
// sqlite3 shell (Debian package sqlite3), the tool a firm has: the
// schema parses, PRAGMA integrity_check answers ok, every table reads,
// and a .dump loads into a new file holding the same rows. Without the
// shell the test is skipped, unless CI=true or
// COUNSEL_TEST_SQLITE3_REQUIRED=1, which fail it instead.
package sqlitetest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Required reports whether a missing sqlite3 shell fails tests (CI).
func Required() bool {
	return os.Getenv("CI") == "true" || os.Getenv("COUNSEL_TEST_SQLITE3_REQUIRED") == "1"
}

// Shell returns the path of the sqlite3 shell, skipping t (or failing it
// when Required) when there is none.
func Shell(t testing.TB) string {
	t.Helper()
	path, err := exec.LookPath("sqlite3")
	if err != nil {
		if Required() {
			t.Fatalf("the sqlite3 shell is required here (CI) but not found: apt-get install -y sqlite3")
		}
		t.Skip("sqlite3 not found: install the Debian package sqlite3 to run this test")
	}
	return path
}

// Run runs the shell on file with args and returns its standard output,
// failing t on any error or any output on standard error.
func Run(t testing.TB, shell, file string, stdin []byte, args ...string) string {
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
	return out.String()
}

// Check opens file with the stock shell and checks that its schema
// parses and PRAGMA integrity_check answers ok, that every ordinary table
// reads (a count of its rows), and that its .dump loads into a new file
// whose every table holds the same number of rows. It returns the row
// count of each table. Virtual tables are read through their shadow
// tables: a full-text table's options may be newer than the shell.
func Check(t testing.TB, file string) map[string]int64 {
	t.Helper()
	shell := Shell(t)
	if got := strings.TrimSpace(Run(t, shell, file, nil, "PRAGMA integrity_check")); got != "ok" {
		t.Fatalf("sqlite3 %s: PRAGMA integrity_check = %q, want ok", file, got)
	}
	counts := tableCounts(t, shell, file)
	if len(counts) == 0 {
		t.Fatalf("sqlite3 %s: no tables", file)
	}
	dump := Run(t, shell, file, nil, ".dump")
	copyFile := filepath.Join(t.TempDir(), "dump.db")
	Run(t, shell, copyFile, []byte(dump))
	copied := tableCounts(t, shell, copyFile)
	for name, n := range counts {
		if copied[name] != n {
			t.Errorf("sqlite3 .dump of %s: table %s has %d rows in the copy, want %d", file, name, copied[name], n)
		}
	}
	if got := strings.TrimSpace(Run(t, shell, copyFile, nil, "PRAGMA integrity_check")); got != "ok" {
		t.Fatalf("sqlite3 .dump of %s loaded: PRAGMA integrity_check = %q, want ok", file, got)
	}
	return counts
}

// tableCounts counts the rows of every ordinary table of file with the
// shell, in one run.
func tableCounts(t testing.TB, shell, file string) map[string]int64 {
	t.Helper()
	list := Run(t, shell, file, nil,
		`SELECT name FROM sqlite_schema WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL TABLE%' AND name NOT LIKE 'sqlite\_%' ESCAPE '\' ORDER BY name`)
	names := strings.Fields(list)
	if len(names) == 0 {
		return nil
	}
	var q strings.Builder
	for i, n := range names {
		if i > 0 {
			q.WriteString(" UNION ALL ")
		}
		fmt.Fprintf(&q, `SELECT '%s', count(*) FROM "%s"`, n, n)
	}
	counts := map[string]int64{}
	for _, line := range strings.Split(strings.TrimSpace(Run(t, shell, file, nil, q.String())), "\n") {
		name, n, ok := strings.Cut(line, "|")
		v, err := strconv.ParseInt(n, 10, 64)
		if !ok || err != nil {
			t.Fatalf("sqlite3 %s: row count line %q", file, line)
		}
		counts[name] = v
	}
	return counts
}
