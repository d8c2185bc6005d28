package embeddedsign_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"io"
	"net/url"
	"path"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"counsel/adapters/embeddedsign"
	"counsel/domain"
	"counsel/domain/signing"
	"counsel/ports"
	"counsel/ports/porttest"

	"github.com/matryer/is"
)

var ctx = context.Background()

func TestNewRefusesAnIncompleteConfig(t *testing.T) {
	t.Parallel()
	opener := func(context.Context, string) (io.ReadCloser, string, string, error) { return nil, "", "", nil }
	tests := []struct {
		name string
		cfg  embeddedsign.Config
		want string
	}{
		{"empty", embeddedsign.Config{}, "PublicURL"},
		{"relative url", embeddedsign.Config{PublicURL: "/x", Documents: opener, Secret: make([]byte, 32)}, "PublicURL"},
		{"no store", embeddedsign.Config{PublicURL: "https://x.example", Documents: opener, Secret: make([]byte, 32)}, "Store"},
		{"short secret", embeddedsign.Config{PublicURL: "https://x.example", Documents: opener, Secret: make([]byte, 8)}, "Secret"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			_, err := embeddedsign.New(tt.cfg)
			is.True(err != nil)                             // refused
			is.True(strings.Contains(err.Error(), tt.want)) // names the setting
		})
	}
}

func TestTemplates(t *testing.T) {
	t.Parallel()
	t.Run("documents by reference with signed links", func(t *testing.T) {
		is := is.New(t)
		h := newHarness(t)
		tpl := h.template(t)
		is.Equal(tpl.Roles, []string{"Client", "Firm"})    // roles kept
		is.Equal(len(tpl.Slug), 32)                        // a random slug
		is.Equal(tpl.Documents[0].ID, "1")                 // the contract document's id
		is.Equal(tpl.Documents[1].FileName, "letter.docx") // base name only
		u, err := url.Parse(tpl.Documents[0].URL)
		is.NoErr(err)                                                         // an absolute URL
		is.Equal(u.Host, "counsel.example.com")                               // under the public URL
		is.Equal(u.Path, "/sign/"+tpl.Slug+"/documents/1")                    // the download route
		is.True(u.Query().Get("sig") != "" && u.Query().Get("expires") != "") // signed, with an expiry

		got, err := h.p.GetTemplate(ctx, tpl.ID)
		is.NoErr(err)                           // read back
		is.Equal(got.Name, "Service agreement") // name
		is.Equal(len(got.Documents), 2)         // documents
	})
	t.Run("template document link", func(t *testing.T) {
		h := newHarness(t)
		tpl := h.template(t)
		u, _ := url.Parse(tpl.Documents[0].URL)
		q := u.Query()
		req := func(slug, doc, exp, sig string) ports.SigningDocumentRequest {
			return ports.SigningDocumentRequest{Slug: slug, DocumentID: doc, Expires: exp, Signature: sig}
		}
		tests := []struct {
			name    string
			req     ports.SigningDocumentRequest
			advance time.Duration
			ok      bool
		}{
			{"valid", req(tpl.Slug, "1", q.Get("expires"), q.Get("sig")), 0, true},
			{"another document", req(tpl.Slug, "2", q.Get("expires"), q.Get("sig")), 0, false},
			{"later expiry", req(tpl.Slug, "1", q.Get("expires")+"0", q.Get("sig")), 0, false},
			{"tampered signature", req(tpl.Slug, "1", q.Get("expires"), flip(q.Get("sig"))), 0, false},
			{"no signature", req(tpl.Slug, "1", q.Get("expires"), ""), 0, false},
			{"expired", req(tpl.Slug, "1", q.Get("expires"), q.Get("sig")), 2 * time.Hour, false},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				is := is.New(t)
				h.clock.Advance(tt.advance)
				defer h.clock.Advance(-tt.advance)
				doc, err := h.p.Document(ctx, tt.req)
				if !tt.ok {
					is.Equal(domain.ErrorCode(err), domain.ENOTFOUND) // refused as not found
					return
				}
				is.NoErr(err) // opened
				defer doc.Body.Close()
				b, _ := io.ReadAll(doc.Body)
				is.Equal(b, h.docs["1"])                     // the bytes
				is.Equal(doc.FileName, "agreement.pdf")      // the record's name
				is.Equal(doc.ContentType, "application/pdf") // the record's type
			})
		}
	})
	t.Run("invalid input", func(t *testing.T) {
		doc := signing.Document{ID: "1", FileName: "a.pdf"}
		tests := []struct {
			name  string
			in    signing.NewTemplate
			field string
		}{
			{"no documents", signing.NewTemplate{Name: "x"}, "documents"},
			{"document without id", signing.NewTemplate{Name: "x", Documents: []signing.Document{{FileName: "a.pdf"}}}, "documents"},
			{"document twice", signing.NewTemplate{Name: "x", Documents: []signing.Document{doc, doc}}, "documents"},
			{"role twice", signing.NewTemplate{Name: "x", Roles: []string{"Client", "client"}, Documents: []signing.Document{doc}}, "roles"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				is := is.New(t)
				_, err := newHarness(t).p.CreateTemplate(ctx, tt.in)
				is.Equal(domain.ErrorCode(err), domain.EINVALID) // refused
				var de *domain.Error
				is.True(errorAs(err, &de) && len(de.Fields[tt.field]) > 0) // names the field
			})
		}
	})
	t.Run("defaults", func(t *testing.T) {
		is := is.New(t)
		tpl, err := newHarness(t).p.CreateTemplate(ctx, signing.NewTemplate{Documents: []signing.Document{{ID: "1", FileName: ""}}})
		is.NoErr(err)                                     // create
		is.Equal(tpl.Roles, []string{"Signer 1"})         // one default role
		is.Equal(tpl.Name, "document-1")                  // named after the document
		is.Equal(tpl.Documents[0].FileName, "document-1") // a file name
	})
}

func TestCreateSubmission(t *testing.T) {
	t.Parallel()
	t.Run("links, roles and order", func(t *testing.T) {
		is := is.New(t)
		h := newHarness(t)
		tpl := h.template(t)
		in := twoSigners(tpl.ID, "")
		in.Submitters[0].Role, in.Submitters[1].Role = "", ""
		s := h.submission(t, in)
		is.Equal(s.Submitters[0].Role, "Client") // the template's roles fill blanks
		is.Equal(s.Submitters[1].Role, "Firm")
		seen := map[string]bool{}
		for _, sub := range s.Submitters {
			is.True(strings.HasPrefix(sub.EmbedSrc, "https://counsel.example.com/sign/")) // under the public URL
			slug := path.Base(sub.EmbedSrc)
			raw, err := base64.RawURLEncoding.DecodeString(slug)
			is.NoErr(err)              // base64url
			is.True(len(raw)*8 >= 128) // at least 128 random bits
			is.True(!seen[slug])       // distinct
			seen[slug] = true
			is.Equal(sub.Status, signing.SubmitterAwaiting) // no email asked
		}
		// Order defaults to preserved: the second signer waits.
		page, err := h.p.Page(ctx, path.Base(s.Submitters[1].EmbedSrc))
		is.NoErr(err)         // page
		is.True(page.Waiting) // preserved by default
	})
	t.Run("invalid input", func(t *testing.T) {
		past := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
		tests := []struct {
			name   string
			change func(*signing.NewSubmission)
			field  string
		}{
			{"no submitters", func(in *signing.NewSubmission) { in.Submitters = nil }, "submitters"},
			{"no email", func(in *signing.NewSubmission) { in.Submitters[1].Email = " " }, "submitters[1].email"},
			{"bad email", func(in *signing.NewSubmission) { in.Submitters[0].Email = "Casey <casey@example.com>" }, "submitters[0].email"},
			{"same email twice", func(in *signing.NewSubmission) { in.Submitters[1].Email = "CLIENT@example.com" }, "submitters[1].email"},
			{"unknown order", func(in *signing.NewSubmission) { in.Order = "parallel" }, "order"},
			{"expiry in the past", func(in *signing.NewSubmission) { in.ExpireAt = &past }, "expireAt"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				is := is.New(t)
				h := newHarness(t)
				in := twoSigners(h.template(t).ID, signing.OrderRandom)
				tt.change(&in)
				_, err := h.p.CreateSubmission(ctx, in)
				is.Equal(domain.ErrorCode(err), domain.EINVALID) // refused
				var de *domain.Error
				is.True(errorAs(err, &de) && len(de.Fields[tt.field]) > 0) // names the field
			})
		}
	})
	t.Run("unknown template", func(t *testing.T) {
		for _, id := range []string{"77", "x", "", "01", "+1"} {
			t.Run(id, func(t *testing.T) {
				is := is.New(t)
				_, err := newHarness(t).p.CreateSubmission(ctx, twoSigners(id, signing.OrderRandom))
				is.Equal(domain.ErrorCode(err), domain.ENOTFOUND) // no such template
			})
		}
	})
}

func TestOtherPortMethods(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	h := newHarness(t)
	tok, err := h.p.BuilderToken(ctx, signing.BuilderTokenRequest{UserEmail: "a@example.com"})
	is.Equal(domain.ErrorCode(err), domain.ENOTIMPLEMENTED) // no form builder
	is.True(strings.Contains(err.Error(), "DocuSeal"))      // says where it lives
	is.Equal(tok, "")                                       // no token
	ev, err := h.p.ParseWebhook(func(string) string { return "t=1,v1=abc" }, []byte(`{}`), time.Now())
	is.Equal(domain.ErrorCode(err), domain.EUNAUTHORIZED) // no webhooks
	is.Equal(len(ev), 0)                                  // no events
	_, err = h.p.ListSubmissions(ctx, "abc")
	is.Equal(domain.ErrorCode(err), domain.ENOTFOUND) // not an id of this provider
}

func TestSigningFlow(t *testing.T) {
	t.Parallel()
	t.Run("preserved order: the second signer waits, events report progress", func(t *testing.T) {
		is := is.New(t)
		h := newHarness(t)
		tpl := h.template(t)
		s := h.submission(t, twoSigners(tpl.ID, signing.OrderPreserved))
		first, second := path.Base(s.Submitters[0].EmbedSrc), path.Base(s.Submitters[1].EmbedSrc)

		page, err := h.p.Page(ctx, second)
		is.NoErr(err)                                  // the waiting page
		is.True(page.Waiting)                          // waits for the first signer
		is.Equal(page.FormToken, "")                   // no forms
		is.Equal(len(page.Documents), 0)               // no documents
		is.Equal(page.Title, "Service agreement 2026") // the submission's name
		tok := formToken(t, h, first)                  // a valid token of another slug
		_, err = h.p.Sign(ctx, second, ports.SignInput{FormToken: tok, Name: "Pat", Consent: true})
		is.Equal(domain.ErrorCode(err), domain.EFORBIDDEN) // a token is bound to its slug

		p1, err := h.p.Page(ctx, first)
		is.NoErr(err)                              // the first page
		is.True(!p1.Waiting)                       // may sign
		is.Equal(len(p1.Documents), 2)             // both documents
		is.Equal(p1.SubmitterName, "Casey Client") // greets the signer
		_, err = h.p.Document(ctx, ports.SigningDocumentRequest{Slug: second, DocumentID: "1"})
		is.Equal(domain.ErrorCode(err), domain.ECONFLICT) // no documents before its turn

		got, _ := h.p.GetSubmission(ctx, s.ID)
		is.Equal(got.Submitters[0].Status, signing.SubmitterOpened)   // opened on first view
		is.True(got.Submitters[0].OpenedAt != nil)                    // with the time
		is.Equal(got.Submitters[1].Status, signing.SubmitterAwaiting) // the waiting page does not count

		res, err := h.p.Sign(ctx, first, ports.SignInput{FormToken: p1.FormToken, Name: "  Casey   Client ", Consent: true, ClientAddr: "192.0.2.7", UserAgent: "Test"})
		is.NoErr(err)              // signed
		is.True(!res.AllCompleted) // one left
		is.Equal(h.events.kinds(), []string{signing.EventSubmitterCompleted})
		ev := h.events.all()[0]
		is.Equal(ev.SubmissionID, s.ID)                   // names the submission
		is.Equal(ev.TemplateID, tpl.ID)                   // and the template
		is.Equal(ev.SubmitterEmail, "client@example.com") // and the signer
		is.True(!ev.AllCompleted)                         // not the last
		is.Equal(ev.At, h.clock.Now())                    // when

		_, err = h.p.Page(ctx, first)
		is.Equal(domain.ErrorCode(err), domain.ENOTFOUND) // a used link is gone
		_, err = h.p.Sign(ctx, first, ports.SignInput{FormToken: p1.FormToken, Name: "Casey", Consent: true})
		is.Equal(domain.ErrorCode(err), domain.ENOTFOUND) // and cannot sign twice

		p2, err := h.p.Page(ctx, second)
		is.NoErr(err)        // now the second may act
		is.True(!p2.Waiting) // no longer waiting
		res, err = h.p.Sign(ctx, second, ports.SignInput{FormToken: p2.FormToken, Name: "Pat Partner", Consent: true})
		is.NoErr(err)             // signed
		is.True(res.AllCompleted) // the last
		is.Equal(h.events.kinds(), []string{signing.EventSubmitterCompleted, signing.EventSubmitterCompleted, signing.EventSubmissionCompleted})
		is.True(h.events.all()[1].AllCompleted) // the last signer's event says so

		got, _ = h.p.GetSubmission(ctx, s.ID)
		is.Equal(got.Status, signing.SubmissionCompleted) // completed
		is.True(got.CompletedAt != nil)                   // with the time
	})
	t.Run("random order: anyone signs first", func(t *testing.T) {
		is := is.New(t)
		h := newHarness(t)
		s := h.submission(t, twoSigners(h.template(t).ID, signing.OrderRandom))
		second := path.Base(s.Submitters[1].EmbedSrc)
		p2, err := h.p.Page(ctx, second)
		is.NoErr(err)        // page
		is.True(!p2.Waiting) // no waiting in random order
		_, err = h.p.Sign(ctx, second, ports.SignInput{FormToken: p2.FormToken, Name: "Pat", Consent: true})
		is.NoErr(err) // the second signs first
	})
	t.Run("decline ends the submission for everyone", func(t *testing.T) {
		is := is.New(t)
		h := newHarness(t)
		s := h.submission(t, twoSigners(h.template(t).ID, signing.OrderRandom))
		first, second := path.Base(s.Submitters[0].EmbedSrc), path.Base(s.Submitters[1].EmbedSrc)
		p1, _ := h.p.Page(ctx, first)
		_, err := h.p.Decline(ctx, first, ports.DeclineInput{FormToken: p1.FormToken, Reason: "  The fee is wrong "})
		is.NoErr(err) // declined
		evs := h.events.all()
		is.Equal(len(evs), 1)                                 // one event
		is.Equal(evs[0].Kind, signing.EventSubmitterDeclined) // a decline
		is.Equal(evs[0].Reason, "The fee is wrong")           // with the reason
		got, _ := h.p.GetSubmission(ctx, s.ID)
		is.Equal(got.Status, signing.SubmissionDeclined)              // declined
		is.Equal(got.Submitters[0].DeclineReason, "The fee is wrong") // reason kept
		_, err = h.p.Page(ctx, second)
		is.Equal(domain.ErrorCode(err), domain.ENOTFOUND) // the other link is done too
	})
	t.Run("missing fields and bad tokens", func(t *testing.T) {
		h := newHarness(t)
		s := h.submission(t, twoSigners(h.template(t).ID, signing.OrderRandom))
		slug := path.Base(s.Submitters[0].EmbedSrc)
		tok := formToken(t, h, slug)
		tests := []struct {
			name    string
			sign    *ports.SignInput
			decline *ports.DeclineInput
			code    string
			field   string
		}{
			{"no name", &ports.SignInput{FormToken: tok, Name: "   ", Consent: true}, nil, domain.EINVALID, "name"},
			{"no consent", &ports.SignInput{FormToken: tok, Name: "Casey"}, nil, domain.EINVALID, "consent"},
			{"no reason", nil, &ports.DeclineInput{FormToken: tok, Reason: " \n"}, domain.EINVALID, "reason"},
			{"no token", &ports.SignInput{Name: "Casey", Consent: true}, nil, domain.EFORBIDDEN, ""},
			{"garbage token", &ports.SignInput{FormToken: "abc", Name: "Casey", Consent: true}, nil, domain.EFORBIDDEN, ""},
			{"tampered token", &ports.SignInput{FormToken: flip(tok), Name: "Casey", Consent: true}, nil, domain.EFORBIDDEN, ""},
			{"decline without token", nil, &ports.DeclineInput{Reason: "no"}, domain.EFORBIDDEN, ""},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				is := is.New(t)
				var err error
				if tt.sign != nil {
					_, err = h.p.Sign(ctx, slug, *tt.sign)
				} else {
					_, err = h.p.Decline(ctx, slug, *tt.decline)
				}
				is.Equal(domain.ErrorCode(err), tt.code) // refused
				if tt.field != "" {
					var de *domain.Error
					is.True(errorAs(err, &de) && len(de.Fields[tt.field]) > 0) // names the field
				}
			})
		}
		is := is.New(t)
		got, _ := h.p.GetSubmission(ctx, s.ID)
		is.Equal(got.Status, signing.SubmissionPending) // nothing changed
		is.Equal(len(h.events.all()), 0)                // nothing reported
	})
	t.Run("a form token goes stale", func(t *testing.T) {
		is := is.New(t)
		h := newHarness(t)
		s := h.submission(t, twoSigners(h.template(t).ID, signing.OrderRandom))
		slug := path.Base(s.Submitters[0].EmbedSrc)
		tok := formToken(t, h, slug)
		h.clock.Advance(13 * time.Hour)
		_, err := h.p.Sign(ctx, slug, ports.SignInput{FormToken: tok, Name: "Casey", Consent: true})
		is.Equal(domain.ErrorCode(err), domain.EFORBIDDEN) // older than 12 hours
		_, err = h.p.Sign(ctx, slug, ports.SignInput{FormToken: formToken(t, h, slug), Name: "Casey", Consent: true})
		is.NoErr(err) // a fresh page's token works
	})
	t.Run("unknown and used links give one answer", func(t *testing.T) {
		is := is.New(t)
		h := newHarness(t)
		s := h.submission(t, twoSigners(h.template(t).ID, signing.OrderRandom))
		h.Complete(t, s.ID, "client@example.com")
		_, errUsed := h.p.Page(ctx, path.Base(s.Submitters[0].EmbedSrc))
		_, errUnknown := h.p.Page(ctx, "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
		_, errEmpty := h.p.Page(ctx, "")
		is.Equal(domain.ErrorCode(errUsed), domain.ENOTFOUND) // used
		is.Equal(errUsed.Error(), errUnknown.Error())         // same answer as unknown
		is.Equal(errUsed.Error(), errEmpty.Error())           // and as empty
	})
	t.Run("the event sink failing does not undo the signature", func(t *testing.T) {
		is := is.New(t)
		h := newHarness(t)
		h.events.fail = true
		s := h.submission(t, twoSigners(h.template(t).ID, signing.OrderRandom))
		h.Complete(t, s.ID, "client@example.com")
		got, _ := h.p.GetSubmission(ctx, s.ID)
		is.Equal(got.Submitters[0].Status, signing.SubmitterCompleted) // recorded
		is.Equal(len(h.events.all()), 1)                               // the sink was called
	})
	t.Run("signers acting at once complete the submission once", func(t *testing.T) {
		is := is.New(t)
		h := newHarness(t)
		tpl := h.template(t)
		in := twoSigners(tpl.ID, signing.OrderRandom)
		in.Submitters = append(in.Submitters, signing.NewSubmitter{Email: "witness@example.com"}, signing.NewSubmitter{Email: "other@example.com"})
		s := h.submission(t, in)
		var wg sync.WaitGroup
		var mu sync.Mutex
		oks := 0
		for _, sub := range s.Submitters {
			slug := path.Base(sub.EmbedSrc)
			tok := formToken(t, h, slug)
			for range 3 { // each signer presses the button three times
				wg.Add(1)
				go func() {
					defer wg.Done()
					_, err := h.p.Sign(ctx, slug, ports.SignInput{FormToken: tok, Name: "N", Consent: true})
					if err == nil {
						mu.Lock()
						oks++
						mu.Unlock()
					} else if domain.ErrorCode(err) != domain.ENOTFOUND {
						t.Error(err)
					}
				}()
			}
		}
		wg.Wait()
		is.Equal(oks, 4) // one signature per signer
		completed := 0
		for _, e := range h.events.all() {
			if e.Kind == signing.EventSubmissionCompleted {
				completed++
			}
		}
		is.Equal(completed, 1)           // completed once
		is.Equal(len(h.events.all()), 5) // four signatures and the completion
	})
}

func TestDocumentsThroughASignerLink(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	h := newHarness(t)
	s := h.submission(t, twoSigners(h.template(t).ID, signing.OrderRandom))
	slug := path.Base(s.Submitters[0].EmbedSrc)
	doc, err := h.p.Document(ctx, ports.SigningDocumentRequest{Slug: slug, DocumentID: "2"})
	is.NoErr(err) // opened
	b, _ := io.ReadAll(doc.Body)
	doc.Body.Close()
	is.True(bytes.Equal(b, h.docs["2"]))                // the bytes
	is.Equal(doc.FileName, "letter.docx")               // the record's name
	is.Equal(doc.ContentType, porttest.DOCXContentType) // the record's type
	_, err = h.p.Document(ctx, ports.SigningDocumentRequest{Slug: slug, DocumentID: "3"})
	is.Equal(domain.ErrorCode(err), domain.ENOTFOUND) // not a document of the template
	delete(h.docs, "2")
	_, err = h.p.Document(ctx, ports.SigningDocumentRequest{Slug: slug, DocumentID: "2"})
	is.Equal(domain.ErrorCode(err), domain.ENOTFOUND) // deleted from the contract since
	h.Complete(t, s.ID, "client@example.com")
	_, err = h.p.Document(ctx, ports.SigningDocumentRequest{Slug: slug, DocumentID: "1"})
	is.Equal(domain.ErrorCode(err), domain.ENOTFOUND) // a used link reads nothing
}

func TestExpiry(t *testing.T) {
	t.Parallel()
	expiring := func(t *testing.T, h *harness, in time.Duration) signing.Submission {
		at := h.clock.Now().Add(in)
		sub := twoSigners(h.template(t).ID, signing.OrderRandom)
		sub.ExpireAt = &at
		return h.submission(t, sub)
	}
	t.Run("the sweep expires what is due, once", func(t *testing.T) {
		is := is.New(t)
		h := newHarness(t)
		soon := expiring(t, h, time.Hour)
		later := expiring(t, h, 3*time.Hour)
		n, err := h.p.ExpireDue(ctx)
		is.NoErr(err)  // sweep
		is.Equal(n, 0) // nothing due yet
		h.clock.Advance(time.Hour)
		n, err = h.p.ExpireDue(ctx)
		is.NoErr(err)  // sweep at the expiry time
		is.Equal(n, 1) // the first
		n, err = h.p.ExpireDue(ctx)
		is.NoErr(err)  // sweep again
		is.Equal(n, 0) // nothing twice
		is.Equal(h.events.kinds(), []string{signing.EventSubmissionExpired})
		is.Equal(h.events.all()[0].SubmissionID, soon.ID) // names the submission
		got, _ := h.p.GetSubmission(ctx, soon.ID)
		is.Equal(got.Status, signing.SubmissionExpired) // expired
		got, _ = h.p.GetSubmission(ctx, later.ID)
		is.Equal(got.Status, signing.SubmissionPending) // not yet
		_, err = h.p.Page(ctx, path.Base(soon.Submitters[0].EmbedSrc))
		is.Equal(domain.ErrorCode(err), domain.ENOTFOUND) // the link is gone
	})
	t.Run("reads expire lazily", func(t *testing.T) {
		is := is.New(t)
		h := newHarness(t)
		s := expiring(t, h, time.Hour)
		h.clock.Advance(2 * time.Hour)
		list, err := h.p.ListSubmissions(ctx, s.TemplateID)
		is.NoErr(err)                                       // list
		is.Equal(list[0].Status, signing.SubmissionExpired) // expired on read
		got, _ := h.p.GetSubmission(ctx, s.ID)
		is.Equal(got.Status, signing.SubmissionExpired)                      // stays expired
		is.Equal(h.events.kinds(), []string{signing.EventSubmissionExpired}) // reported once
		n, _ := h.p.ExpireDue(ctx)
		is.Equal(n, 0) // nothing left for the sweep
	})
	t.Run("signing after the expiry time is refused and expires", func(t *testing.T) {
		is := is.New(t)
		h := newHarness(t)
		s := expiring(t, h, time.Hour)
		slug := path.Base(s.Submitters[0].EmbedSrc)
		tok := formToken(t, h, slug)
		h.clock.Advance(time.Hour)
		_, err := h.p.Sign(ctx, slug, ports.SignInput{FormToken: tok, Name: "Casey", Consent: true})
		is.Equal(domain.ErrorCode(err), domain.ENOTFOUND)                    // too late
		is.Equal(h.events.kinds(), []string{signing.EventSubmissionExpired}) // expired instead
	})
}

func TestInvitations(t *testing.T) {
	t.Parallel()
	const kind = "signingInvitation"
	t.Run("preserved order invites one signer at a time", func(t *testing.T) {
		is := is.New(t)
		h := newHarness(t)
		in := twoSigners(h.template(t).ID, signing.OrderPreserved)
		in.SendEmail = true
		in.Message = signing.Message{Subject: "Sign {{template.name}}", Body: "Dear {{submitter.name}}, sign here: {{submitter.link}} thanks"}
		s := h.submission(t, in)
		is.Equal(h.mailTo(t, kind), []string{"client@example.com"}) // queued with the submission, only the first signer
		is.Equal(s.Submitters[0].Status, signing.SubmitterSent)     // marked sent
		is.True(s.Submitters[0].SentAt != nil)                      // with the time
		is.Equal(s.Submitters[1].Status, signing.SubmitterAwaiting) // the second waits
		mail := h.mails(t)[0]
		is.Equal(mail.subject, "Sign Service agreement 2026")                                    // variables in the subject
		is.Equal(mail.body, "Dear Casey Client, sign here: "+s.Submitters[0].EmbedSrc+" thanks") // and the body
		is.True(!strings.Contains(mail.body, s.Submitters[1].EmbedSrc))                          // no other signer's link

		h.Complete(t, s.ID, "client@example.com")
		is.Equal(h.mailTo(t, kind), []string{"client@example.com", "partner@example.com"}) // the next one with the signature
		got, _ := h.p.GetSubmission(ctx, s.ID)
		is.Equal(got.Submitters[1].Status, signing.SubmitterSent) // marked sent
		h.Complete(t, s.ID, "partner@example.com")
		is.Equal(len(h.mailTo(t, kind)), 2) // nobody left to invite
	})
	t.Run("random order invites everyone; a default message carries the link", func(t *testing.T) {
		is := is.New(t)
		h := newHarness(t)
		in := twoSigners(h.template(t).ID, signing.OrderRandom)
		in.SendEmail = true
		s := h.submission(t, in)
		is.Equal(h.mailTo(t, kind), []string{"client@example.com", "partner@example.com"}) // both
		m := h.mails(t)
		is.True(strings.Contains(m[1].body, s.Submitters[1].EmbedSrc))   // each their own link
		is.Equal(m[0].subject, "Please sign: Service agreement 2026")    // default subject
		is.True(strings.Contains(m[0].body, "Hello Casey Client,"))      // greeting
		is.True(strings.Contains(m[0].body, "please do not forward it")) // personal
	})
	t.Run("a body without the link variable gets the link appended", func(t *testing.T) {
		is := is.New(t)
		h := newHarness(t)
		in := twoSigners(h.template(t).ID, signing.OrderRandom)
		in.SendEmail, in.Message.Body = true, "Please sign."
		s := h.submission(t, in)
		is.Equal(h.mails(t)[0].body, "Please sign.\n\n"+s.Submitters[0].EmbedSrc+"\n") // appended
	})
	t.Run("no email asked sends nothing", func(t *testing.T) {
		is := is.New(t)
		h := newHarness(t)
		s := h.submission(t, twoSigners(h.template(t).ID, signing.OrderRandom))
		is.Equal(len(h.mails(t)), 0)                                // SendEmail false
		is.Equal(s.Submitters[0].Status, signing.SubmitterAwaiting) // not sent
		is.True(s.Submitters[0].EmbedSrc != "")                     // the link is there
	})
}

// TestReminders drives the reminder schedule with the fake clock: one
// reminder per interval after the invitation, at most max, none once the
// signer signed or the submission ended; remind-now and its cool-down.
func TestReminders(t *testing.T) {
	t.Parallel()
	const kind = "signingReminder"
	remind := func(t *testing.T, h *harness) int {
		t.Helper()
		n, err := h.p.RemindDue(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	submit := func(t *testing.T, h *harness, order string) signing.Submission {
		in := twoSigners(h.template(t).ID, order)
		in.SendEmail = true
		return h.submission(t, in)
	}
	t.Run("every interval, at most max, until signed", func(t *testing.T) {
		is := is.New(t)
		h := newHarness(t, withReminders(time.Hour, 2))
		s := submit(t, h, signing.OrderRandom)
		is.Equal(remind(t, h), 0) // not yet
		h.clock.Advance(59 * time.Minute)
		is.Equal(remind(t, h), 0)
		h.clock.Advance(time.Minute)
		is.Equal(remind(t, h), 2) // both signers, an hour after the invitation
		is.Equal(remind(t, h), 0) // once
		is.Equal(h.mailTo(t, kind), []string{"client@example.com", "partner@example.com"})
		m := h.mails(t)[2]
		is.Equal(m.subject, "Reminder: please sign Service agreement 2026")
		is.True(strings.Contains(m.body, s.Submitters[0].EmbedSrc)) // their link

		h.Complete(t, s.ID, "client@example.com")
		h.clock.Advance(time.Hour)
		is.Equal(remind(t, h), 1) // the partner only: the client signed
		h.clock.Advance(time.Hour)
		is.Equal(remind(t, h), 0) // max reached
		h.clock.Advance(10 * time.Hour)
		is.Equal(remind(t, h), 0)
		is.Equal(h.mailTo(t, kind), []string{"client@example.com", "partner@example.com", "partner@example.com"})
		got, _ := h.p.GetSubmission(ctx, s.ID)
		is.Equal(got.Submitters[1].Status, signing.SubmitterSent) // still pending
	})
	t.Run("preserved order reminds only the signer whose turn it is", func(t *testing.T) {
		is := is.New(t)
		h := newHarness(t, withReminders(time.Hour, 3))
		submit(t, h, signing.OrderPreserved)
		h.clock.Advance(time.Hour)
		is.Equal(remind(t, h), 1)
		is.Equal(h.mailTo(t, kind), []string{"client@example.com"})
	})
	t.Run("none after a decline or expiry, none when off", func(t *testing.T) {
		is := is.New(t)
		h := newHarness(t, withReminders(time.Hour, 3))
		s := submit(t, h, signing.OrderRandom)
		h.Decline(t, s.ID, "client@example.com", "no")
		h.clock.Advance(time.Hour)
		is.Equal(remind(t, h), 0) // declined

		h = newHarness(t, withReminders(time.Hour, 3))
		in := twoSigners(h.template(t).ID, signing.OrderRandom)
		in.SendEmail = true
		exp := h.clock.Now().Add(30 * time.Minute)
		in.ExpireAt = &exp
		h.submission(t, in)
		h.clock.Advance(time.Hour)
		is.Equal(remind(t, h), 0) // expired first

		h = newHarness(t, withReminders(0, 3))
		submit(t, h, signing.OrderRandom)
		h.clock.Advance(1000 * time.Hour)
		is.Equal(remind(t, h), 0) // off
		is.Equal(len(h.mailTo(t, kind)), 0)
	})
	t.Run("remind now, its cool-down, and the wait it restarts", func(t *testing.T) {
		is := is.New(t)
		h := newHarness(t, withReminders(3*time.Hour, 5)) // reminders by hand count towards max
		s := submit(t, h, signing.OrderRandom)
		res, err := h.p.RemindNow(ctx, s.ID, 7)
		is.NoErr(err)
		is.Equal(res.Reminded, []string{"client@example.com", "partner@example.com"})
		_, err = h.p.RemindNow(ctx, s.ID, 7)
		var de *domain.Error
		is.True(errors.As(err, &de))
		is.Equal(de.Code, domain.ERATELIMITED) // every signer cooling down
		is.Equal(de.RetryAfter, time.Hour)

		// One signer cooling down, the other not: the other is reminded,
		// the first listed with their wait.
		id, err := strconv.ParseInt(s.ID, 10, 64)
		is.NoErr(err)
		_, err = h.db.Stores().Signing.UpdateSubmission(ctx, id, func(r *ports.SigningSubmissionRecord) error {
			r.Submitters[1].RemindedAt = nil
			return nil
		})
		is.NoErr(err)
		res, err = h.p.RemindNow(ctx, s.ID, 7)
		is.NoErr(err)
		is.Equal(res.Reminded, []string{"partner@example.com"})
		is.Equal(res.CoolingDown, []ports.CoolingSigner{{Email: "client@example.com", RetryAfter: time.Hour}})
		h.clock.Advance(59 * time.Minute)
		h.Complete(t, s.ID, "client@example.com")
		_, err = h.p.RemindNow(ctx, s.ID, 7)
		is.True(errors.As(err, &de))
		is.Equal(de.RetryAfter, time.Minute)
		h.clock.Advance(time.Minute)
		res, err = h.p.RemindNow(ctx, s.ID, 7)
		is.NoErr(err)
		is.Equal(res.Reminded, []string{"partner@example.com"}) // not the one who signed
		h.clock.Advance(2*time.Hour + 59*time.Minute)
		is.Equal(remind(t, h), 0) // the wait restarts from the last reminder
		h.clock.Advance(time.Minute)
		is.Equal(remind(t, h), 1)

		h.Decline(t, s.ID, "partner@example.com", "no")
		_, err = h.p.RemindNow(ctx, s.ID, 7)
		is.Equal(domain.ErrorCode(err), domain.ECONFLICT) // not pending
		_, err = h.p.RemindNow(ctx, "999", 7)
		is.Equal(domain.ErrorCode(err), domain.ENOTFOUND)
	})
}

// formToken returns a fresh form token of slug's page.
func formToken(t *testing.T, h *harness, slug string) string {
	t.Helper()
	page, err := h.p.Page(ctx, slug)
	if err != nil {
		t.Fatalf("page: %v", err)
	}
	return page.FormToken
}

// flip changes a character in the middle of a token (the MAC part).
func flip(s string) string {
	i := len(s) / 2
	c := byte('A')
	if s[i] == 'A' {
		c = 'B'
	}
	return s[:i] + string(c) + s[i+1:]
}

func errorAs(err error, target **domain.Error) bool {
	de, ok := err.(*domain.Error)
	if ok {
		*target = de
	}
	return ok
}
