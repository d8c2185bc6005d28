package app_test

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"counsel/adapters/postgres/pgtest"
	"counsel/app"
	"counsel/app/apptest"
	"counsel/app/transfer"
	"counsel/ports/porttest"
)

// TestBackupRestoreSameService backs up a live service (the engine of
// COUNSEL_TEST_ENGINE) holding signed evidence, a user with an
// authenticator app and signed-in sessions, verifies the backup, restores
// it onto a new SQLite file and a new PostgreSQL database, and serves
// each: the access token issued before still verifies, the signed PDF
// verifies valid at POST /api/signing/verify, the TOTP user signs in with
// the app's code, and documents download byte for byte.
func TestBackupRestoreSameService(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	ctx := context.Background()
	src := apptest.New(t, func(c *app.Config) {
		c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	})
	tok := src.Admin(t)
	id, _, sub := evidenceContract(t, src, tok)
	for i, p := range evidenceSigners {
		evidenceSign(t, src, sub.Submitters[i].EmbedSrc, p)
	}
	done := evidenceSubmission(t, src, tok, id)
	is.True(done.CombinedDocumentURL != nil) // evidence made
	combined := evidenceGet(t, src, *done.CombinedDocumentURL)
	_, _, secret, _ := totpUser(t, src, "app@example.com")
	pdf := porttest.MinimalPDF(4)
	other := contractID(contractCreate(t, src, tok, map[string]any{"contractName": "Plain lease"}))
	upload := contractUpload(t, src, tok, other, "plain.pdf", pdf).Expect(t, 201, "upload").Map(t)

	dir := t.TempDir()
	backup := filepath.Join(dir, "counsel-backup.db")
	report, err := transfer.Backup(ctx, src.Config.DB, backup, transfer.BackupOptions{DataDir: src.Config.DataDir})
	is.NoErr(err)                        // backed up while serving
	is.Equal(report.Documents, int64(6)) // 3 + signed + audit + plain
	info, err := os.Stat(backup)
	is.NoErr(err)
	is.Equal(info.Mode().Perm(), os.FileMode(0o600)) // owner-only
	_, failures, err := transfer.VerifyBackup(ctx, backup, transfer.VerifyOptions{})
	is.NoErr(err)
	is.Equal(failures, []string(nil)) // sound
	_, err = transfer.Backup(ctx, src.Config.DB, backup, transfer.BackupOptions{DataDir: src.Config.DataDir})
	is.True(err != nil && strings.Contains(err.Error(), "exists")) // an existing DEST is refused

	targets := []struct{ name, dsn string }{{"sqlite", filepath.Join(dir, "restored.db")}}
	if pgtest.Available() || pgtest.Required() {
		targets = append(targets, struct{ name, dsn string }{"postgres", pgtest.URL(t)})
	}
	for _, tt := range targets {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			var out bytes.Buffer
			is.NoErr(transfer.Restore(ctx, backup, tt.dsn, transfer.RestoreOptions{Progress: &out}))
			is.True(strings.Contains(out.String(), "every SHA-256 verified")) // says what it checked
			err := transfer.Restore(ctx, backup, tt.dsn, transfer.RestoreOptions{})
			is.True(err != nil && strings.Contains(err.Error(), "not empty")) // a non-empty target is refused

			// The same service: the same public URL (the tokens' issuer).
			s := apptest.New(t, func(c *app.Config) { c.DB, c.Clock, c.PublicURL = tt.dsn, src.Clock, src.Config.PublicURL })
			is.Equal(s.Do(t, "GET", "/api/me", tok, nil).Status, 200) // the old access token verifies
			r := evidenceVerify(t, s, "combined.pdf", bytes.NewReader(combined)).Expect(t, 200, "verify")
			var v evidenceVerification
			r.JSON(t, &v)
			is.True(v.Valid) // the signed evidence verifies
			is.True(v.CounselDocument)
			src.Clock.Advance(time.Minute)
			is.Equal(login(t, s, "app@example.com", "password-123", appCode(t, secret, src.Clock.Now())).Status, 200) // TOTP works
			got := s.Do(t, "GET", fmt.Sprintf("/api/contracts/%d/documents/%v/content", other, upload["id"]), tok, nil)
			is.Equal(got.Status, 200)
			is.True(bytes.Equal(got.Body, pdf)) // the same bytes
			next := contractID(contractCreate(t, s, tok, map[string]any{"contractName": "after the restore"}))
			is.True(next > other) // ids go on after the old ones
		})
	}

	t.Run("a damaged backup is refused before anything is written", func(t *testing.T) {
		is := is.New(t)
		bad := filepath.Join(t.TempDir(), "bad.db")
		b, err := os.ReadFile(backup)
		is.NoErr(err)
		is.NoErr(os.WriteFile(bad, b, 0o600))
		db, err := sql.Open("sqlite", bad)
		is.NoErr(err)
		_, err = db.Exec(`UPDATE contract_documents SET sha256 = '00' || substr(sha256, 3) WHERE id = ?`, upload["id"])
		is.NoErr(err)
		is.NoErr(db.Close())
		_, failures, err := transfer.VerifyBackup(ctx, bad, transfer.VerifyOptions{})
		is.NoErr(err)
		is.Equal(len(failures), 1)                            // one failure
		is.True(strings.Contains(failures[0], `"plain.pdf"`)) // naming the document
		target := filepath.Join(t.TempDir(), "never.db")
		err = transfer.Restore(ctx, bad, target, transfer.RestoreOptions{})
		is.True(err != nil && strings.Contains(err.Error(), "plain.pdf")) // refused, naming it
		_, err = os.Stat(target)
		is.True(os.IsNotExist(err)) // nothing written
	})
}
