package sqlite_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"counsel/adapters/sqlite"
	"counsel/domain"
	"counsel/domain/signing"
	"counsel/ports"

	"github.com/matryer/is"
)

func openSigning(t *testing.T) (*sqlite.DB, ports.SigningStore) {
	t.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "signing.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, db.Stores().Signing
}

var t0 = time.Date(2026, 3, 1, 9, 30, 0, 0, time.UTC)

func newTemplate(t *testing.T, s ports.SigningStore, slug string) ports.SigningTemplateRecord {
	t.Helper()
	tpl, err := s.CreateTemplate(context.Background(), ports.SigningTemplateRecord{
		Name: "Service agreement", Slug: slug, ExternalID: "uuid-" + slug, Roles: []string{"Client", "Firm"},
		Documents: []ports.SigningDocumentRecord{
			{DocumentID: "7", FileName: "agreement.pdf", ContentType: "application/pdf"},
			{DocumentID: "9", FileName: "schedule.docx"},
		},
		CreatedAt: t0, UpdatedAt: t0,
	})
	if err != nil {
		t.Fatal(err)
	}
	return tpl
}

func newSubmission(t *testing.T, s ports.SigningStore, templateID int64, prefix string, at time.Time, expire *time.Time) ports.SigningSubmissionRecord {
	t.Helper()
	sub, err := s.CreateSubmission(context.Background(), ports.SigningSubmissionRecord{
		TemplateID: templateID, Name: "Contract", Order: signing.OrderPreserved, Status: signing.SubmissionPending,
		SendEmail: true, Message: signing.Message{Subject: "Sign", Body: "Body"}, ExpireAt: expire,
		CreatedAt: at, UpdatedAt: at,
		Submitters: []ports.SigningSubmitterRecord{
			{Slug: prefix + "-a", Name: "Casey", Email: "casey@example.com", Role: "Client", Status: signing.SubmitterAwaiting},
			{Slug: prefix + "-b", Name: "Pat", Email: "pat@example.com", Phone: "+61", Role: "Firm", Status: signing.SubmitterAwaiting},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return sub
}

func TestSigningTemplates(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	t.Run("create and read back", func(t *testing.T) {
		is := is.New(t)
		_, s := openSigning(t)
		tpl := newTemplate(t, s, "tslug")
		is.True(tpl.ID > 0)                                       // id assigned
		is.Equal(tpl.Roles, []string{"Client", "Firm"})           // roles kept in order
		is.Equal(len(tpl.Documents), 2)                           // both documents
		is.Equal(tpl.Documents[1].DocumentID, "9")                // order kept
		is.Equal(tpl.Documents[0].ContentType, "application/pdf") // content type kept
		is.Equal(tpl.CreatedAt, t0)                               // time round-trips

		got, err := s.Template(ctx, tpl.ID)
		is.NoErr(err)      // read by id
		is.Equal(got, tpl) // the same record
		got, err = s.TemplateBySlug(ctx, "tslug")
		is.NoErr(err)            // read by slug
		is.Equal(got.ID, tpl.ID) // same template
	})
	t.Run("unknown ids and slugs", func(t *testing.T) {
		is := is.New(t)
		_, s := openSigning(t)
		_, err := s.Template(ctx, 42)
		is.Equal(domain.ErrorCode(err), domain.ENOTFOUND) // unknown id
		_, err = s.TemplateBySlug(ctx, "nope")
		is.Equal(domain.ErrorCode(err), domain.ENOTFOUND) // unknown slug
		_, err = s.Submission(ctx, 42)
		is.Equal(domain.ErrorCode(err), domain.ENOTFOUND) // unknown submission
		_, _, err = s.SubmissionBySlug(ctx, "nope")
		is.Equal(domain.ErrorCode(err), domain.ENOTFOUND) // unknown submitter slug
		_, err = s.UpdateSubmission(ctx, 42, func(*ports.SigningSubmissionRecord) error { return nil })
		is.Equal(domain.ErrorCode(err), domain.ENOTFOUND) // update of an unknown submission
	})
	t.Run("a taken slug is a conflict", func(t *testing.T) {
		is := is.New(t)
		_, s := openSigning(t)
		newTemplate(t, s, "same")
		_, err := s.CreateTemplate(ctx, ports.SigningTemplateRecord{Name: "x", Slug: "same", CreatedAt: t0, UpdatedAt: t0})
		is.Equal(domain.ErrorCode(err), domain.ECONFLICT) // slug unique
	})
}

func TestSigningSubmissions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	t.Run("create and read back", func(t *testing.T) {
		is := is.New(t)
		_, s := openSigning(t)
		tpl := newTemplate(t, s, "t")
		exp := t0.Add(48 * time.Hour)
		sub := newSubmission(t, s, tpl.ID, "s1", t0, &exp)
		is.True(sub.ID > 0)                      // id assigned
		is.Equal(len(sub.Submitters), 2)         // both submitters
		is.True(sub.Submitters[0].ID > 0)        // submitter ids assigned
		is.Equal(sub.Submitters[1].Phone, "+61") // details kept
		is.Equal(*sub.ExpireAt, exp)             // expiry kept
		is.Equal(sub.Message.Subject, "Sign")    // message kept
		is.True(sub.SendEmail)                   // flag kept

		got, err := s.Submission(ctx, sub.ID)
		is.NoErr(err)      // read by id
		is.Equal(got, sub) // the same record
		got, i, err := s.SubmissionBySlug(ctx, "s1-b")
		is.NoErr(err)            // read by slug
		is.Equal(got.ID, sub.ID) // the submission
		is.Equal(i, 1)           // the second submitter
	})
	t.Run("unknown template", func(t *testing.T) {
		is := is.New(t)
		_, s := openSigning(t)
		_, err := s.CreateSubmission(ctx, ports.SigningSubmissionRecord{TemplateID: 99, Order: "random", Status: "pending", CreatedAt: t0, UpdatedAt: t0})
		is.Equal(domain.ErrorCode(err), domain.ENOTFOUND) // foreign key
	})
	t.Run("a taken submitter slug is a conflict and stores nothing", func(t *testing.T) {
		is := is.New(t)
		_, s := openSigning(t)
		tpl := newTemplate(t, s, "t")
		newSubmission(t, s, tpl.ID, "dup", t0, nil)
		_, err := s.CreateSubmission(ctx, ports.SigningSubmissionRecord{TemplateID: tpl.ID, Order: "random", Status: "pending",
			CreatedAt: t0, UpdatedAt: t0, Submitters: []ports.SigningSubmitterRecord{{Slug: "dup-a", Email: "x@example.com", Status: "awaiting"}}})
		is.Equal(domain.ErrorCode(err), domain.ECONFLICT) // slug unique
		subs, err := s.SubmissionsByTemplate(ctx, tpl.ID, 10)
		is.NoErr(err)          // list
		is.Equal(len(subs), 1) // the failed one rolled back whole
	})
	t.Run("a template's submissions, newest first, limited", func(t *testing.T) {
		is := is.New(t)
		_, s := openSigning(t)
		tpl := newTemplate(t, s, "t")
		other := newTemplate(t, s, "o")
		var ids []int64
		for i := range 4 {
			ids = append(ids, newSubmission(t, s, tpl.ID, fmt.Sprint("s", i), t0, nil).ID) // same time: id decides
		}
		newSubmission(t, s, other.ID, "x", t0, nil)
		subs, err := s.SubmissionsByTemplate(ctx, tpl.ID, 3)
		is.NoErr(err)                // list
		is.Equal(len(subs), 3)       // limited
		is.Equal(subs[0].ID, ids[3]) // newest first
		is.Equal(subs[2].ID, ids[1]) // then older
		for _, sub := range subs {
			is.Equal(len(sub.Submitters), 2)                       // submitters loaded
			is.Equal(sub.Submitters[0].Email, "casey@example.com") // in order
		}
		none, err := s.SubmissionsByTemplate(ctx, 12345, 10)
		is.NoErr(err)          // unknown template
		is.Equal(len(none), 0) // has none
	})
	t.Run("update saves submission and submitters together", func(t *testing.T) {
		is := is.New(t)
		_, s := openSigning(t)
		tpl := newTemplate(t, s, "t")
		sub := newSubmission(t, s, tpl.ID, "s", t0, nil)
		at := t0.Add(time.Hour)
		got, err := s.UpdateSubmission(ctx, sub.ID, func(r *ports.SigningSubmissionRecord) error {
			r.Status, r.CompletedAt, r.UpdatedAt = signing.SubmissionCompleted, &at, at
			for i := range r.Submitters {
				r.Submitters[i].Status, r.Submitters[i].CompletedAt = signing.SubmitterCompleted, &at
				r.Submitters[i].SignedName, r.Submitters[i].SignerAddr, r.Submitters[i].SignerAgent = "Casey", "192.0.2.1", "Browser"
				r.Submitters[i].Email = "changed@example.com" // contact details are not saved
			}
			return nil
		})
		is.NoErr(err)                                                  // update
		is.Equal(got.Status, signing.SubmissionCompleted)              // submission saved
		is.Equal(*got.CompletedAt, at)                                 // time saved
		is.Equal(got.Submitters[1].Status, signing.SubmitterCompleted) // submitters saved
		is.Equal(got.Submitters[0].SignerAddr, "192.0.2.1")            // evidence saved
		is.Equal(got.Submitters[0].Email, "casey@example.com")         // contact details kept

		boom := errors.New("boom")
		_, err = s.UpdateSubmission(ctx, sub.ID, func(r *ports.SigningSubmissionRecord) error {
			r.Status = signing.SubmissionDeclined
			return boom
		})
		is.True(errors.Is(err, boom)) // fn's error returned as is
		again, err := s.Submission(ctx, sub.ID)
		is.NoErr(err)                                       // read
		is.Equal(again.Status, signing.SubmissionCompleted) // rolled back
	})
	t.Run("concurrent updates serialise", func(t *testing.T) {
		is := is.New(t)
		_, s := openSigning(t)
		tpl := newTemplate(t, s, "t")
		sub := newSubmission(t, s, tpl.ID, "s", t0, nil)
		var wg sync.WaitGroup
		var mu sync.Mutex
		winners := 0
		for i := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := s.UpdateSubmission(ctx, sub.ID, func(r *ports.SigningSubmissionRecord) error {
					if r.Status != signing.SubmissionPending {
						return nil
					}
					r.Status = signing.SubmissionDeclined
					r.Submitters[0].DeclineReason = fmt.Sprint("reason ", i)
					mu.Lock()
					winners++
					mu.Unlock()
					return nil
				})
				if err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		is.Equal(winners, 1) // exactly one update saw the pending state
	})
	t.Run("due submissions", func(t *testing.T) {
		is := is.New(t)
		_, s := openSigning(t)
		tpl := newTemplate(t, s, "t")
		soon, later := t0.Add(time.Hour), t0.Add(3*time.Hour)
		a := newSubmission(t, s, tpl.ID, "a", t0, &later)
		b := newSubmission(t, s, tpl.ID, "b", t0, &soon)
		newSubmission(t, s, tpl.ID, "c", t0, nil)
		done := newSubmission(t, s, tpl.ID, "d", t0, &soon)
		_, err := s.UpdateSubmission(ctx, done.ID, func(r *ports.SigningSubmissionRecord) error {
			r.Status = signing.SubmissionCompleted
			return nil
		})
		is.NoErr(err) // complete one

		ids, err := s.DueSubmissions(ctx, t0.Add(30*time.Minute), 10)
		is.NoErr(err)         // none due yet
		is.Equal(len(ids), 0) // nothing
		ids, err = s.DueSubmissions(ctx, soon, 10)
		is.NoErr(err)                // at the expiry time
		is.Equal(ids, []int64{b.ID}) // due at its time; the completed one is not
		ids, err = s.DueSubmissions(ctx, t0.Add(5*time.Hour), 10)
		is.NoErr(err)                      // later
		is.Equal(ids, []int64{b.ID, a.ID}) // soonest first
		ids, err = s.DueSubmissions(ctx, t0.Add(5*time.Hour), 1)
		is.NoErr(err)                // limited
		is.Equal(ids, []int64{b.ID}) // one
	})
}

// TestSigningQueriesUseIndexes checks the plans of the lookups by slug,
// by template and of the expiry sweep.
func TestSigningQueriesUseIndexes(t *testing.T) {
	t.Parallel()
	db, _ := openSigning(t)
	tests := []struct {
		query string
		want  string
	}{
		{"SELECT submission_id, position FROM signing_submitters WHERE slug = 'x'", "sqlite_autoindex_signing_submitters"},
		{"SELECT id FROM signing_templates WHERE slug = 'x'", "sqlite_autoindex_signing_templates"},
		{"SELECT id FROM signing_submissions s WHERE s.template_id = 1 ORDER BY s.id DESC LIMIT 5", "signing_submissions_template"},
		{"SELECT id FROM signing_submissions WHERE status = 'pending' AND expire_at IS NOT NULL AND expire_at <= 5 ORDER BY expire_at, id LIMIT 5", "signing_submissions_due"},
		{"SELECT id FROM signing_submitters WHERE submission_id IN (1, 2) ORDER BY submission_id, position", "sqlite_autoindex_signing_submitters"},
		{"SELECT id FROM signing_submissions WHERE evidence_pending = 1 ORDER BY id LIMIT 5", "signing_submissions_evidence_pending"},
		{"SELECT 1 FROM contract_documents WHERE sha256 = 'x' AND kind = 'signed' LIMIT 1", "contract_documents_signed_sha256"},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			is := is.New(t)
			rows, err := db.Read().Query("EXPLAIN QUERY PLAN " + tt.query)
			is.NoErr(err) // explain
			defer rows.Close()
			var plan []string
			for rows.Next() {
				var id, parent, unused int
				var detail string
				is.NoErr(rows.Scan(&id, &parent, &unused, &detail)) // plan row
				plan = append(plan, detail)
			}
			joined := strings.Join(plan, "; ")
			is.True(strings.Contains(joined, tt.want)) // uses the index
			for _, step := range plan {
				// A scan of a (partial) index is fine; of a table, not.
				is.True(!strings.HasPrefix(step, "SCAN") || strings.Contains(step, "USING")) // no table scan
			}
		})
	}
}

func TestSigningEvidenceMark(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, s := openSigning(t)
	tpl := newTemplate(t, s, "ev")
	a := newSubmission(t, s, tpl.ID, "ev1", t0, nil)
	b := newSubmission(t, s, tpl.ID, "ev2", t0, nil)
	is := is.New(t)
	for _, id := range []int64{b.ID, a.ID} {
		_, err := s.UpdateSubmission(ctx, id, func(r *ports.SigningSubmissionRecord) error {
			r.Status, r.EvidencePending = signing.SubmissionCompleted, true
			return nil
		})
		is.NoErr(err) // marked with the completion
	}
	ids, err := s.EvidencePending(ctx, t0, 10)
	is.NoErr(err)
	is.Equal(ids, []int64{a.ID, b.ID}) // oldest first

	is.NoErr(s.SetEvidence(ctx, a.ID, "31", "32"))
	got, err := s.Submission(ctx, a.ID)
	is.NoErr(err)
	is.True(!got.EvidencePending) // cleared
	is.Equal(got.CombinedDocumentID, "31")
	is.Equal(got.AuditDocumentID, "32")
	ids, err = s.EvidencePending(ctx, t0, 10)
	is.NoErr(err)
	is.Equal(ids, []int64{b.ID})
	is.Equal(domain.ErrorCode(s.SetEvidence(ctx, 999, "1", "2")), domain.ENOTFOUND)

	// Attempts: counted, and not due again before their retry time.
	for want := 1; want <= 2; want++ {
		n, err := s.EvidenceAttempt(ctx, b.ID, func(n int) time.Time { return t0.Add(time.Duration(n) * time.Hour) })
		is.NoErr(err)
		is.Equal(n, want) // counted
	}
	ids, err = s.EvidencePending(ctx, t0.Add(time.Hour), 10)
	is.NoErr(err)
	is.Equal(len(ids), 0) // not due before its retry time
	ids, err = s.EvidencePending(ctx, t0.Add(2*time.Hour), 10)
	is.NoErr(err)
	is.Equal(ids, []int64{b.ID}) // due at it
	is.NoErr(s.EvidenceFailed(ctx, b.ID, t0))
	ids, err = s.EvidencePending(ctx, t0.Add(48*time.Hour), 10)
	is.NoErr(err)
	is.Equal(len(ids), 0) // given up
	_, err = s.EvidenceAttempt(ctx, 999, func(int) time.Time { return t0 })
	is.Equal(domain.ErrorCode(err), domain.ENOTFOUND)
	is.Equal(domain.ErrorCode(s.EvidenceFailed(ctx, 999, t0)), domain.ENOTFOUND)
}
