package transfer

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"counsel/adapters/litestream"
	"counsel/adapters/pdfevidence"
	"counsel/adapters/sqlite"
	"counsel/app/stores"
	"counsel/domain/audit"
	"counsel/ports"
)

// TableCount is one table's row count in a backup report.
type TableCount struct {
	Name string
	Rows int64
}

// BackupReport is what a backup file holds: the row count per table and
// the contract documents' count and bytes.
type BackupReport struct {
	Tables        []TableCount
	Documents     int64
	DocumentBytes int64
}

// Print writes the report, one table a line.
func (r BackupReport) Print(w io.Writer) {
	for _, t := range r.Tables {
		fmt.Fprintf(w, "%-28s %d rows\n", t.Name, t.Rows)
	}
	fmt.Fprintf(w, "documents                    %d (%d bytes)\n", r.Documents, r.DocumentBytes)
}

// BackupOptions are the COUNSEL_DATA_DIR of a SQLite source whose
// documents an older version kept as files (moved into it first, as a
// start does), and where progress goes.
type BackupOptions struct {
	DataDir  string
	Progress io.Writer
}

// Backup writes the whole record of the database src (a SQLite file or a
// PostgreSQL URL) to dest, a new SQLite file, from one consistent
// snapshot taken while servers keep serving: on SQLite VACUUM INTO (one
// read transaction), on PostgreSQL one read-only REPEATABLE READ
// transaction copied into a new file with Counsel's SQLite schema. dest
// is written owner-only under a temporary name in its folder and linked
// to its name only when complete; an existing dest is refused and left as
// it is.
func Backup(ctx context.Context, src, dest string, o BackupOptions) (BackupReport, error) {
	if _, err := os.Lstat(dest); err == nil {
		return BackupReport{}, fmt.Errorf("%s exists; choose a new file name", dest)
	}
	from, err := stores.Open(ctx, src, "")
	if err != nil {
		return BackupReport{}, fmt.Errorf("open %s: %w", stores.RedactDSN(src), err)
	}
	defer from.Close()
	if o.DataDir != "" { // an older layout's files first, as a start does
		if _, err := from.MoveDocumentFiles(ctx, o.DataDir); err != nil {
			return BackupReport{}, fmt.Errorf("move document files into the database: %w", err)
		}
	}
	return BackupStores(ctx, from, dest, o)
}

// BackupStores is Backup of the open database from.
func BackupStores(ctx context.Context, from *stores.Stores, dest string, o BackupOptions) (BackupReport, error) {
	if o.Progress == nil {
		o.Progress = io.Discard
	}
	if _, err := os.Lstat(dest); err == nil {
		return BackupReport{}, fmt.Errorf("%s exists; choose a new file name", dest)
	}
	var k [6]byte
	rand.Read(k[:])
	tmp := filepath.Join(filepath.Dir(dest), "."+filepath.Base(dest)+".partial-"+hex.EncodeToString(k[:]))
	defer removeDB(tmp)
	if err := writeBackup(ctx, from, tmp, o); err != nil {
		return BackupReport{}, err
	}
	if err := sqlite.SingleFile(ctx, tmp); err != nil {
		return BackupReport{}, err
	}
	if err := syncFile(tmp); err != nil {
		return BackupReport{}, err
	}
	// A link, unlike a rename, never replaces a file made meanwhile.
	if err := os.Link(tmp, dest); err != nil {
		if errors.Is(err, os.ErrExist) {
			return BackupReport{}, fmt.Errorf("%s exists; choose a new file name", dest)
		}
		return BackupReport{}, fmt.Errorf("backup to %s: %w", dest, err)
	}
	os.Remove(tmp)
	if d, err := os.Open(filepath.Dir(dest)); err == nil {
		d.Sync()
		d.Close()
	}
	f, err := sqlite.OpenFile(dest)
	if err != nil {
		return BackupReport{}, err
	}
	defer f.Close()
	return fileReport(ctx, f)
}

// writeBackup writes the snapshot of from into the new file tmp.
func writeBackup(ctx context.Context, from *stores.Stores, tmp string, o BackupOptions) error {
	if from.SQLite() != nil {
		return from.SQLite().Backup(ctx, tmp)
	}
	to, err := stores.Open(ctx, tmp, "")
	if err != nil {
		return err
	}
	err = func() error {
		snap, err := openSnapshot(ctx, from)
		if err != nil {
			return err
		}
		defer snap.close()
		_, _, err = copyInto(ctx, snap, to, o.Progress)
		return err
	}()
	return errors.Join(err, to.Close())
}

// removeDB removes a SQLite file and its companions, if any.
func removeDB(path string) {
	for _, p := range []string{path, path + "-wal", path + "-shm", path + "-journal"} {
		os.Remove(p)
	}
}

func syncFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Chmod(0o600); err != nil {
		return err
	}
	return f.Sync()
}

// fileReport counts a backup file's rows and documents.
func fileReport(ctx context.Context, f *sqlite.File) (BackupReport, error) {
	var r BackupReport
	for _, t := range allTables() {
		n, err := f.Count(ctx, t.name)
		if err != nil {
			return r, fmt.Errorf("count %s: %w", t.name, err)
		}
		r.Tables = append(r.Tables, TableCount{t.name, n})
	}
	err := f.Documents(ctx, func(d sqlite.FileDocument) error {
		r.Documents++
		r.DocumentBytes += d.Size
		return nil
	})
	return r, err
}

// VerifyOptions name the firm's own evidence certificate
// (COUNSEL_PDF_CERT and COUNSEL_PDF_KEY) when signed evidence is not
// signed with the identity the database keeps.
type VerifyOptions struct {
	PDFCert, PDFKey string
}

// VerifyBackup checks a backup file: PRAGMA integrity_check, every
// table present, every document's bytes against the SHA-256 and size of
// its row, and every signed-evidence PDF's signature against the
// server's certificate. It returns the file's report and one line per
// failure (none when the file is sound); err is for a file it could not
// read at all.
func VerifyBackup(ctx context.Context, path string, o VerifyOptions) (BackupReport, []string, error) {
	f, err := sqlite.OpenFile(path)
	if err != nil {
		return BackupReport{}, nil, err
	}
	defer f.Close()
	var failures []string
	fail := func(format string, args ...any) { failures = append(failures, fmt.Sprintf(format, args...)) }
	problems, err := f.IntegrityCheck(ctx)
	if err != nil {
		return BackupReport{}, []string{"integrity_check: " + err.Error()}, nil
	}
	for _, p := range problems {
		fail("integrity_check: %s", p)
	}
	tables, err := f.Tables(ctx)
	if err != nil {
		return BackupReport{}, append(failures, "read the schema: "+err.Error()), nil
	}
	for _, t := range allTables() {
		if !tables[t.name] {
			fail("table %s is missing: not a Counsel database", t.name)
		}
	}
	if len(failures) > 0 {
		return BackupReport{}, failures, nil
	}
	report, err := fileReport(ctx, f)
	if err != nil {
		return report, append(failures, err.Error()), nil
	}
	evidence, evErr := backupEvidence(ctx, f, o)
	err = f.Documents(ctx, func(d sqlite.FileDocument) error {
		name := fmt.Sprintf("document %d (%q of contract %d)", d.ID, d.FileName, d.ContractID)
		r, err := f.OpenDocument(ctx, d.StorageKey)
		if err != nil {
			fail("%s: %v", name, err)
			return nil
		}
		defer r.Close()
		h := sha256.New()
		var buf bytes.Buffer // only a signed PDF is kept, to check its signature
		w := io.Writer(h)
		if d.Kind == "signed" {
			w = io.MultiWriter(h, &buf)
		}
		n, err := io.Copy(w, r)
		switch {
		case err != nil:
			fail("%s: %v", name, err)
			return nil
		case n != d.Size:
			fail("%s: %d bytes stored, its row says %d", name, n, d.Size)
			return nil
		case hex.EncodeToString(h.Sum(nil)) != d.SHA256:
			fail("%s: its bytes do not match its SHA-256", name)
			return nil
		}
		if d.Kind != "signed" {
			return nil
		}
		if evErr != nil {
			fail("%s: cannot check its signature: %v", name, evErr)
			return nil
		}
		v, err := evidence.Verify(ctx, bytes.NewReader(buf.Bytes()), int64(buf.Len()))
		if err != nil {
			fail("%s: signature: %v", name, err)
		} else if !v.Valid {
			fail("%s: signature: %s", name, v.Reason)
		}
		return nil
	})
	if err != nil {
		fail("read the documents: %v", err)
	}
	return report, failures, nil
}

// backupEvidence is the evidence verifier with the certificate the
// backup's server signed with: the firm's own when named, else the
// identity the database keeps.
func backupEvidence(ctx context.Context, f *sqlite.File, o VerifyOptions) (*pdfevidence.Evidence, error) {
	if o.PDFCert != "" {
		cert, err := os.ReadFile(o.PDFCert)
		if err != nil {
			return nil, fmt.Errorf("COUNSEL_PDF_CERT: %w", err)
		}
		key, err := os.ReadFile(o.PDFKey)
		if err != nil {
			return nil, fmt.Errorf("COUNSEL_PDF_KEY: %w", err)
		}
		return pdfevidence.New(cert, key, time.Now)
	}
	id, err := f.Setting(ctx, "pdf_signing_identity")
	if err != nil {
		return nil, err
	}
	if id == nil {
		return nil, errors.New("the backup holds no PDF signing identity; name the firm's certificate with COUNSEL_PDF_CERT and COUNSEL_PDF_KEY")
	}
	return pdfevidence.New(id, id, time.Now)
}

// RestoreOptions are where restore reports, VerifyOptions, and the
// actor the restored database records as having restored it (zero: the
// command line, "counsel restore").
type RestoreOptions struct {
	Progress io.Writer
	Verify   VerifyOptions
	Actor    audit.Actor
}

// Restore copies the backup file into the empty database dst (a SQLite
// path or a PostgreSQL URL). The backup is verified first, and a damaged
// one is refused before anything is written; a non-empty target is
// refused unchanged. The copy carries every table and document, keys and
// secrets included, so the restored service is the same service; at the
// end the target's row counts and every document's SHA-256 are checked.
func Restore(ctx context.Context, file, dst string, o RestoreOptions) error {
	if o.Progress == nil {
		o.Progress = io.Discard
	}
	if _, failures, err := VerifyBackup(ctx, file, o.Verify); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	} else if len(failures) > 0 {
		return &VerifyError{File: file, Failures: failures}
	}
	fmt.Fprintf(o.Progress, "%s verified\n", file)
	f, err := sqlite.OpenFile(file)
	if err != nil {
		return err
	}
	defer f.Close()
	if stores.Engine(dst) != "postgres" {
		if _, err := os.Stat(dst); err == nil {
			if err := refuseNonEmptySQLite(ctx, dst); err != nil {
				return err
			}
		}
	}
	to, err := stores.Open(ctx, dst, "")
	if err != nil {
		return fmt.Errorf("open %s: %w", stores.RedactDSN(dst), err)
	}
	defer to.Close()
	if err := refuseNonEmpty(ctx, to); err != nil {
		return err
	}
	snap, err := fileSnapshot(ctx, f)
	if err != nil {
		return err
	}
	defer snap.close()
	start := time.Now()
	counts, _, err := copyInto(ctx, snap, to, o.Progress)
	if err != nil {
		return err
	}
	snap.close()
	if to.Postgres() != nil {
		if err := to.Postgres().Analyze(ctx); err != nil {
			return err
		}
	} else if err := to.SQLite().Analyze(ctx); err != nil {
		return err
	}
	if err := verifyTarget(ctx, to, to.Blobs, counts, o.Progress); err != nil {
		return err
	}
	// The restored database records its restore (after the check of the
	// counts, which this row would change).
	actor := o.Actor
	if actor == (audit.Actor{}) {
		actor = audit.Actor{Kind: audit.ActorCLI, Name: "counsel restore"}
	}
	ectx, fx := ports.WithEffects(audit.WithActor(ctx, actor))
	fx.Add(ports.Audit(ectx, audit.DatabaseRestored, audit.TargetDatabase, "", map[string]any{"file": filepath.Base(file)}))
	if err := to.Audit.RecordEffects(ectx); err != nil {
		return err
	}
	fmt.Fprintf(o.Progress, "restored %s to %s and verified in %s\n", file, stores.RedactDSN(dst), time.Since(start).Round(time.Millisecond))
	return nil
}

// VerifyError names every failure of a backup's verification.
type VerifyError struct {
	File     string
	Failures []string
}

func (e *VerifyError) Error() string {
	msg := fmt.Sprintf("%s failed verification (%d problems); nothing was written:", e.File, len(e.Failures))
	for _, f := range e.Failures {
		msg += "\n  " + f
	}
	return msg
}

// refuseNonEmptySQLite refuses an existing SQLite target that holds rows,
// before opening it would migrate it.
func refuseNonEmptySQLite(ctx context.Context, path string) error {
	f, err := sqlite.OpenFile(path)
	if err != nil {
		return err
	}
	defer f.Close()
	tables, err := f.Tables(ctx)
	if err != nil {
		return err
	}
	for _, t := range allTables() {
		if !tables[t.name] {
			continue
		}
		if n, err := f.Count(ctx, t.name); err != nil {
			return err
		} else if n > 0 {
			return fmt.Errorf("the target is not empty (%s has %d rows); restore only into a new database", t.name, n)
		}
	}
	return nil
}

// refuseNonEmpty refuses a target that holds rows in any table copied.
func refuseNonEmpty(ctx context.Context, to *stores.Stores) error {
	for _, t := range allTables() {
		n, err := to.RowCount(ctx, t.name)
		if err != nil {
			return fmt.Errorf("count %s in the target: %w", t.name, err)
		}
		if n > 0 {
			return fmt.Errorf("the target is not empty (%s has %d rows); copy only into a new database", t.name, n)
		}
	}
	return nil
}

// verifyTarget compares the target's row counts with counts and reads
// every document back against its SHA-256, printing the counts.
func verifyTarget(ctx context.Context, to *stores.Stores, blobs ports.BlobStore, counts map[string]int64, w io.Writer) error {
	for _, t := range allTables() {
		got, err := to.RowCount(ctx, t.name)
		if err != nil {
			return err
		}
		if got != counts[t.name] {
			return fmt.Errorf("verify %s: %d rows copied, the target has %d", t.name, counts[t.name], got)
		}
		fmt.Fprintf(w, "%-28s %d rows\n", t.name, got)
	}
	n, size, err := verifyDocuments(ctx, to, blobs)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "documents                    %d (%d bytes), every SHA-256 verified\n", n, size)
	return nil
}

// RestoreReplica writes the newest state of the Litestream replica at
// replicaURL to the new SQLite file dest and verifies it as a backup.
func RestoreReplica(ctx context.Context, replicaURL, dest string, o VerifyOptions) (BackupReport, error) {
	if err := litestream.Restore(ctx, replicaURL, dest); err != nil {
		return BackupReport{}, err
	}
	report, failures, err := VerifyBackup(ctx, dest, o)
	if err != nil {
		return report, err
	}
	if len(failures) > 0 {
		return report, &VerifyError{File: dest, Failures: failures}
	}
	return report, nil
}

// BackupFile is a backup file opened read-only, for tests and tools.
type BackupFile struct{ f *sqlite.File }

// OpenBackupFile opens the database file at path read-only.
func OpenBackupFile(path string) (*BackupFile, error) {
	f, err := sqlite.OpenFile(path)
	if err != nil {
		return nil, err
	}
	return &BackupFile{f}, nil
}

// Close closes the file.
func (b *BackupFile) Close() error { return b.f.Close() }

// ContractIDs returns the ids of the file's contracts.
func (b *BackupFile) ContractIDs(ctx context.Context) (map[int64]bool, error) {
	rows, err := b.f.DB().QueryContext(ctx, `SELECT id FROM contracts`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[int64]bool{}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out[id] = true
	}
	return out, rows.Err()
}
