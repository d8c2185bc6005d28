package transfer

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"counsel/app/stores"
	"counsel/domain/contract"
	"counsel/ports"
)

// copyBatch is the number of rows Copy reads and writes at a time: a
// COPY into PostgreSQL, a transaction on SQLite.
const copyBatch = 20000

// Column kinds: how a value is stored on each engine. The values travel
// in SQLite's storage form (times as Unix milliseconds, booleans as 0/1,
// OTP sends as comma-separated milliseconds, JSON as text) and are turned
// into PostgreSQL's on the way in and out.
const (
	kPlain = iota // same on both engines
	kBool         // INTEGER 0/1 | boolean
	kTime         // INTEGER ms | timestamptz (NULL stays NULL)
	kTime0        // INTEGER ms, 0 for none | timestamptz, NULL for none
	kSends        // TEXT "ms,ms" | timestamptz[]
	kJSON         // TEXT | jsonb
)

type copyCol struct {
	name string
	kind int
}

type copyTable struct {
	name string
	cols []copyCol
}

func cols(spec string) []copyCol {
	var out []copyCol
	for _, f := range strings.Fields(spec) {
		name, kind, _ := strings.Cut(f, ":")
		k := kPlain
		switch kind {
		case "b":
			k = kBool
		case "t":
			k = kTime
		case "t0":
			k = kTime0
		case "sends":
			k = kSends
		case "json":
			k = kJSON
		}
		out = append(out, copyCol{name, k})
	}
	return out
}

// copyTables are every table of a Counsel database, parents first.
// contract_documents is copied with the documents' bytes (copyDocuments).
var copyTables = []copyTable{
	{"settings", cols("name value")},
	{"signing_keys", cols("kid private_key created_at:t retired_at:t")},
	{"totp_keys", cols("id key created_at:t")},
	{"offices", cols("id name phone website active:b address1 address2 suburb state postcode country created_at:t updated_at:t")},
	{"users", cols(`id email first_name last_name contact_number profile_picture_url password_hash active:b is_legal:b is_staff:b
		failed_logins locked_until:t0 deleted_at:t created_at:t updated_at:t billing_rate admission_date:t office_id
		address1 address2 suburb state postcode country search_key`)},
	{"roles", cols("id name is_system_admin:b is_default_role:b")},
	{"role_permissions", cols("role_id permission")},
	{"user_roles", cols("user_id role_id")},
	{"otps", cols("email code_hash expires_at:t0 attempts sends:sends")},
	{"sessions", cols("id user_id method created_at:t expires_at:t revoked_at:t kind token_hash last_seen:t authenticated_at:t ip user_agent")},
	{"refresh_tokens", cols("hash session_id created_at:t used_at:t")},
	{"offering_reviewers", cols("offering_id user_id")},
	{"remunerations", cols(`id staff_id fte_load remuneration_inc_super billing_rate billable_percentage remuneration_date:t
		commencement_date:t termination_date:t cost_per_hour kpi kpi_billable kpi_invoiced pqy created_at:t`)},
	{"pqe_adjustments", cols("id staff_id name details start_date:t end_date:t created_at:t")},
	{"user_identities", cols("issuer subject user_id email created_at:t")},
	{"user_totp", cols("user_id sealed_secret created_at:t confirmed_at:t last_step recovery_hashes")},
	{"calendar_feeds", cols("user_id token_hash created_at:t")},
	{"api_keys", cols("id user_id name permissions prefix hash created_at:t expires_at:t last_used_at:t revoked_at:t")},
	{"passkeys", cols("id user_id credential_id name credential sign_count created_at:t last_used_at:t")},
	{"contracts", cols(`id uuid contract_name contract_description contract_type status start_date:t end_date:t amount currency
		is_signed:b comments matter_id client_id project_id digital_contract_id digital_contract_submission_id created_at:t updated_at:t
		owner_id notice_days auto_renew:b notice_date:t`)},
	{"contract_audit", cols("id contract_id action from_status to_status actor_kind actor_user_id actor_name at:t details")},
	{"key_date_announcements", cols("contract_id threshold_days notice_date:t announced_at:t")},
	{"contract_signing_events", cols("contract_id submission_id event_key at:t")},
	{"signing_templates", cols("id name slug external_id roles:json created_at:t updated_at:t")},
	{"signing_template_documents", cols("template_id position document_id file_name content_type")},
	{"signing_submissions", cols(`id template_id name signing_order status send_email:b message_subject message_body expire_at:t
		created_at:t updated_at:t completed_at:t declined_at:t expired_at:t evidence_pending:b combined_document_id audit_document_id
		evidence_attempts evidence_retry_at:t evidence_failed_at:t`)},
	{"signing_submitters", cols(`id submission_id position slug name email phone role status sent_at:t opened_at:t completed_at:t
		declined_at:t decline_reason signed_name signer_addr signer_agent reminders reminded_at:t`)},
	{"signing_template_digests", cols("template_id digest recorded_at:t")},
	{"signing_signer_links", cols("submission_id submitter_id sealed recorded_at:t")},
	{"mail_outbox", cols(`id kind recipient subject body_text body_html status attempts created_at:t next_attempt_at:t
		claimed_until:t sent_at:t error`)},
	{"mail_attachments", cols("mail_id position name content_type data")},
	{"sign_in_devices", cols("user_id kind value last_seen:t")},
	{"webhook_subscriptions", cols(`id url description events secret previous_secret previous_until:t active created_by
		created_at:t updated_at:t failing_since:t disabled_at:t`)},
	{"webhook_events", cols("id type resource resource_id from_status to_status snapshot data created_at:t")},
	{"webhook_deliveries", cols(`id event_id subscription_id status attempts created_at:t next_attempt_at:t claimed_until:t
		claim_token`)},
	{"webhook_attempts", cols("id delivery_id attempt status response_status duration_ms error at:t next_attempt_at:t")},
	{"audit_events", cols("id at:t action actor_kind actor_user_id actor_name target_type target_id ip user_agent request_id details")},
}

var documentCols = cols("id contract_id file_name content_type size sha256 storage_key uploaded_at:t uploaded_by kind")

// CopyOptions are where Copy finds SQLite documents and reports progress.
type CopyOptions struct {
	// FromDataDir is the COUNSEL_DATA_DIR of a SQLite source whose
	// documents an older version kept as files: they are moved into it
	// first, as a server's start does.
	FromDataDir string
	// Progress receives one line per batch and the final counts.
	Progress io.Writer
}

// Copy copies a whole Counsel database, documents included, from src to
// dst (each a SQLite path or a PostgreSQL URL). The target must be empty:
// Copy refuses otherwise, changing nothing. Rows go in batches; at the
// end every table's row count is compared and every document is read
// back and its SHA-256 checked, and the id sequences are set past the
// source's high-water marks.
func Copy(ctx context.Context, src, dst string, o CopyOptions) error {
	if o.Progress == nil {
		o.Progress = io.Discard
	}
	from, err := stores.Open(ctx, src, "")
	if err != nil {
		return fmt.Errorf("open %s: %w", stores.RedactDSN(src), err)
	}
	defer from.Close()
	to, err := stores.Open(ctx, dst, "")
	if err != nil {
		return fmt.Errorf("open %s: %w", stores.RedactDSN(dst), err)
	}
	defer to.Close()
	if o.FromDataDir != "" { // a SQLite source of the older layout
		if _, err := from.MoveDocumentFiles(ctx, o.FromDataDir); err != nil {
			return fmt.Errorf("move the source's document files into it: %w", err)
		}
	}
	if err := refuseNonEmpty(ctx, to); err != nil {
		return err
	}
	start := time.Now()
	snap, err := openSnapshot(ctx, from)
	if err != nil {
		return err
	}
	defer snap.close()
	counts, _, err := copyInto(ctx, snap, to, o.Progress)
	if err != nil {
		return err
	}
	if to.Postgres() != nil { // once, for the planner, after every table is in
		if err := to.Postgres().Analyze(ctx); err != nil {
			return err
		}
	}
	if to.SQLite() != nil { // statistics of the data as copied, for the planner
		if err := to.SQLite().Analyze(ctx); err != nil {
			return err
		}
	}
	// Verify: row counts, then every document's bytes.
	if err := verifyTarget(ctx, to, to.Blobs, counts, o.Progress); err != nil {
		return err
	}
	fmt.Fprintf(o.Progress, "copied and verified in %s\n", time.Since(start).Round(time.Millisecond))
	return nil
}

// selectList is the SELECT list that reads t in the canonical form.
func selectList(engine string, cs []copyCol) string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.name
		if engine != "postgres" {
			continue
		}
		switch c.kind {
		case kBool:
			out[i] = c.name + "::int"
		case kTime:
			out[i] = "(extract(epoch FROM " + c.name + ") * 1000)::bigint"
		case kTime0:
			out[i] = "coalesce((extract(epoch FROM " + c.name + ") * 1000)::bigint, 0)"
		case kSends:
			out[i] = "array_to_string(ARRAY(SELECT (extract(epoch FROM s) * 1000)::bigint FROM unnest(" + c.name + ") s), ',')"
		case kJSON:
			out[i] = c.name + "::text"
		}
	}
	return strings.Join(out, ", ")
}

// toEngine turns a canonical value into what dst stores.
func toEngine(dst *stores.Stores, c copyCol, v any) (any, error) {
	if dst.Engine != "postgres" || v == nil {
		return v, nil
	}
	switch c.kind {
	case kBool:
		return asInt(v) != 0, nil
	case kTime:
		return time.UnixMilli(asInt(v)).UTC(), nil
	case kTime0:
		if asInt(v) == 0 {
			return nil, nil
		}
		return time.UnixMilli(asInt(v)).UTC(), nil
	case kSends:
		out := []time.Time{}
		for _, f := range strings.Split(asString(v), ",") {
			if f == "" {
				continue
			}
			ms, err := strconv.ParseInt(f, 10, 64)
			if err != nil {
				return nil, err
			}
			out = append(out, time.UnixMilli(ms).UTC())
		}
		return out, nil
	case kJSON:
		return asString(v), nil
	}
	return v, nil
}

func asInt(v any) int64 {
	switch n := v.(type) {
	case int64:
		return n
	case int32:
		return int64(n)
	case int16:
		return int64(n)
	case int:
		return int64(n)
	case bool:
		if n {
			return 1
		}
	}
	return 0
}

func asString(v any) string {
	switch s := v.(type) {
	case string:
		return s
	case []byte:
		return string(s)
	}
	return fmt.Sprint(v)
}

// rowsOf streams the rows of a query on s as canonical values.
func rowsOf(ctx context.Context, s *stores.Stores, query string, n int, each func([]any) error) error {
	if s.Engine == "postgres" {
		rows, err := s.Postgres().Pool().Query(ctx, query)
		if err != nil {
			return err
		}
		return eachPG(rows, each)
	}
	rows, err := s.SQLite().Read().QueryContext(ctx, query)
	if err != nil {
		return err
	}
	return eachSQL(rows, n, each)
}

// importRows writes a batch into dst.
func importRows(ctx context.Context, dst *stores.Stores, table string, cs []copyCol, batch [][]any) error {
	names, batch := engineRows(dst, table, cs, batch)
	if dst.Engine == "postgres" {
		return dst.Postgres().Import(ctx, table, names, batch)
	}
	return dst.SQLite().Import(ctx, table, names, batch)
}

// engineRows adds to a batch of table the columns dst keeps beside the
// canonical ones, and returns the column names.
func engineRows(dst *stores.Stores, table string, cs []copyCol, batch [][]any) ([]string, [][]any) {
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = c.name
	}
	if table != "contracts" {
		return names, batch
	}
	if dst.Engine == "postgres" { // the searched text PostgreSQL keeps
		for i, r := range batch {
			batch[i] = append(r, strings.ToLower(asString(r[2])+"\n"+asString(r[3])+"\n"+asString(r[11])))
		}
		return append(names, "search_text"), batch
	}
	for i, r := range batch { // SQLite's plain is_digital column
		digital := int64(0)
		if asString(r[15]) != "" {
			digital = 1
		}
		batch[i] = append(r, digital)
	}
	return append(names, "is_digital"), batch
}

// copyTableRows copies table t in batches. Into PostgreSQL the whole
// table is one bulk load (postgres.DB.Load: indexes built once at the
// end, triggers' work done set-based); into SQLite each batch is a
// transaction.
func copyTableRows(ctx context.Context, snap *snapshot, to *stores.Stores, t copyTable, progress io.Writer) (int64, error) {
	total, err := snap.count(ctx, t.name)
	if err != nil {
		return 0, err
	}
	if total == 0 {
		return 0, nil
	}
	order := ""
	if t.cols[0].name == "id" {
		order = " ORDER BY id"
	}
	start := time.Now()
	stream := func(write func([][]any) error) (int64, error) {
		var n int64
		batch := make([][]any, 0, copyBatch)
		flush := func() error {
			if len(batch) == 0 {
				return nil
			}
			if err := write(batch); err != nil {
				return err
			}
			n += int64(len(batch))
			batch = make([][]any, 0, copyBatch)
			fmt.Fprintf(progress, "%s: %d/%d (%s)\n", t.name, n, total, time.Since(start).Round(time.Millisecond))
			return nil
		}
		err := snap.rows(ctx, `SELECT `+selectList(snap.engine, t.cols)+` FROM `+t.name+order, len(t.cols), func(vals []any) error {
			row := make([]any, len(vals), len(vals)+1)
			for i, v := range vals {
				var err error
				if row[i], err = toEngine(to, t.cols[i], v); err != nil {
					return err
				}
			}
			batch = append(batch, row)
			if len(batch) == copyBatch {
				return flush()
			}
			return nil
		})
		if err != nil {
			return n, err
		}
		return n, flush()
	}
	if to.Postgres() == nil {
		return stream(func(batch [][]any) error { return importRows(ctx, to, t.name, t.cols, batch) })
	}
	var n int64
	err = to.Postgres().Load(ctx, t.name, func(write func([]string, [][]any) error) error {
		var err error
		n, err = stream(func(batch [][]any) error { return write(engineRows(to, t.name, t.cols, batch)) })
		return err
	})
	if err == nil && n > 0 {
		fmt.Fprintf(progress, "%s: indexed (%s)\n", t.name, time.Since(start).Round(time.Millisecond))
	}
	return n, err
}

// copyDocuments copies each document, its bytes and its row, into the
// target in one transaction of the target's (checking the bytes against
// the row's size and SHA-256), under its own storage key. It returns the
// count and the bytes.
func copyDocuments(ctx context.Context, snap *snapshot, to *stores.Stores, progress io.Writer) (int64, int64, error) {
	var docs [][]any
	err := snap.rows(ctx, `SELECT `+selectList(snap.engine, documentCols)+` FROM contract_documents ORDER BY id`, len(documentCols), func(v []any) error {
		docs = append(docs, v)
		return nil
	})
	if err != nil {
		return 0, 0, err
	}
	names := make([]string, len(documentCols))
	for i, c := range documentCols {
		names[i] = c.name
	}
	var n, size int64
	for i, v := range docs {
		d := contract.Document{ID: asInt(v[0]), FileName: asString(v[2]), Size: asInt(v[4]), SHA256: asString(v[5]), StorageKey: asString(v[6])}
		row := make([]any, len(v))
		for j, x := range v {
			if row[j], err = toEngine(to, documentCols[j], x); err != nil {
				return n, size, err
			}
		}
		r, err := snap.open(ctx, d.StorageKey)
		if err != nil {
			return n, size, fmt.Errorf("document %d: %w", d.ID, err)
		}
		if to.Postgres() != nil {
			err = to.Postgres().ImportDocument(ctx, d, names, row, r)
		} else {
			err = to.SQLite().ImportDocument(ctx, d, names, row, r)
		}
		r.Close()
		if err != nil {
			return n, size, fmt.Errorf("document %d: %w", d.ID, err)
		}
		n, size = n+1, size+d.Size
		if n%copyBatch == 0 || i == len(docs)-1 {
			fmt.Fprintf(progress, "contract_documents: %d/%d (with their bytes)\n", n, len(docs))
		}
	}
	return n, size, nil
}

// verifyDocuments reads every document of the target back and checks
// its SHA-256; it returns their count and bytes.
func verifyDocuments(ctx context.Context, s *stores.Stores, blobs ports.BlobStore) (int64, int64, error) {
	type doc struct{ key, sum string }
	var docs []doc
	err := rowsOf(ctx, s, `SELECT storage_key, sha256 FROM contract_documents`, 2, func(v []any) error {
		docs = append(docs, doc{asString(v[0]), asString(v[1])})
		return nil
	})
	if err != nil {
		return 0, 0, err
	}
	var size int64
	for _, d := range docs {
		r, err := blobs.Open(ctx, d.key)
		if err != nil {
			return 0, 0, fmt.Errorf("verify document %s: %w", d.key, err)
		}
		h := sha256.New()
		n, err := io.Copy(h, r)
		r.Close()
		if err != nil {
			return 0, 0, fmt.Errorf("verify document %s: %w", d.key, err)
		}
		if hex.EncodeToString(h.Sum(nil)) != d.sum {
			return 0, 0, fmt.Errorf("verify document %s: SHA-256 differs", d.key)
		}
		size += n
	}
	return int64(len(docs)), size, nil
}

// sequences returns a store's id high-water marks by table.
func sequences(ctx context.Context, s *stores.Stores) (map[string]int64, error) {
	if s.Postgres() != nil {
		return s.Postgres().Sequences(ctx)
	}
	return s.SQLite().Sequences(ctx)
}

// setSequences makes the target continue after marks.
func setSequences(ctx context.Context, s *stores.Stores, marks map[string]int64) error {
	if s.Postgres() != nil {
		return s.Postgres().SetSequences(ctx, marks)
	}
	return s.SQLite().SetSequences(ctx, marks)
}
