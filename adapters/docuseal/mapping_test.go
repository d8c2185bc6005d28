package docuseal

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/matryer/is"

	"counsel/domain/signing"
)

// testdata reads a recorded DocuSeal body from testdata/docuseal.
func testdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "docuseal", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// replayKey is the API key replay servers accept.
const replayKey = "replay-api-key-4f1c"

// replay serves fixed answers by "METHOD path" and returns a Client for it.
func replay(t *testing.T, answers map[string]func(w http.ResponseWriter, r *http.Request)) *Client {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Auth-Token") != replayKey {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		h, ok := answers[r.Method+" "+r.URL.Path]
		if !ok {
			w.WriteHeader(http.StatusNotFound)
			w.Write([]byte(`{"status":404}`))
			return
		}
		h(w, r)
	}))
	t.Cleanup(srv.Close)
	c, err := New(Config{BaseURL: srv.URL + "/api", APIKey: replayKey, WebhookSecret: "whsec_x"})
	if err != nil {
		t.Fatal(err)
	}
	c.backoff = []time.Duration{time.Millisecond, time.Millisecond}
	return c
}

func body(b []byte) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(b)
	}
}

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t
}

func atp(s string) *time.Time { t := at(s); return &t }

func TestGetTemplateMapsEveryField(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	c := replay(t, map[string]func(http.ResponseWriter, *http.Request){
		"GET /api/templates/1001": body(testdata(t, "template.json")),
	})
	got, err := c.GetTemplate(context.Background(), "1001")
	is.NoErr(err) // get template
	is.Equal(got, signing.Template{
		ID:    "1001",
		Name:  "Service agreement",
		Slug:  "iRgjDX7WDK6BRo",
		Roles: []string{"Client", "Firm"},
		Documents: []signing.TemplateDocument{
			{ID: "5", FileName: "agreement.pdf", URL: "https://docuseal.example.com/file/hash/agreement.pdf"},
		},
		CreatedAt: at("2026-03-02T09:21:57.375Z"),
		UpdatedAt: at("2026-03-02T09:22:55.094Z"),
	}) // every field mapped
}

func TestCreatedTemplateWithoutFilenameUsesTheSchemaName(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	c := replay(t, map[string]func(http.ResponseWriter, *http.Request){
		"POST /api/templates/pdf": body(testdata(t, "template_created_pdf.json")),
	})
	got, err := c.CreateTemplate(context.Background(), signing.NewTemplate{
		Name: "Demo PDF", Documents: []signing.Document{{FileName: "demo.pdf", ContentType: "application/pdf", Content: []byte("%PDF-1.4\n")}},
	})
	is.NoErr(err)                                   // create template
	is.Equal(got.ID, "5")                           // id as a decimal string
	is.Equal(got.Roles, []string{"Submitter"})      // roles from submitters
	is.Equal(got.Documents[0].FileName, "Demo PDF") // schema name stands in
	is.Equal(got.Documents[0].ID, "7")              // document id
}

func TestCreateSubmissionGroupsSubmitters(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	c := replay(t, map[string]func(http.ResponseWriter, *http.Request){
		"POST /api/submissions": body(testdata(t, "submissions_create.json")),
	})
	got, err := c.CreateSubmission(context.Background(), signing.NewSubmission{
		TemplateID: "1001",
		Submitters: []signing.NewSubmitter{{Email: "client@example.com", Role: "Client"}, {Email: "partner@example.com", Role: "Firm"}},
		SendEmail:  true,
	})
	is.NoErr(err) // create submission
	is.Equal(got, []signing.Submission{{
		ID:         "5001",
		TemplateID: "1001",
		Status:     signing.SubmissionPending,
		CreatedAt:  at("2026-03-02T10:04:04.101Z"),
		Submitters: []signing.Submitter{
			{
				ID: "9001", Name: "Casey Client", Email: "client@example.com", Phone: "+61400000001", Role: "Client",
				Status: signing.SubmitterSent, SentAt: atp("2026-03-02T10:04:04.252Z"),
				EmbedSrc: "https://docuseal.example.com/s/pAMimKcyrLjqVt",
			},
			{
				ID: "9002", Name: "Pat Partner", Email: "partner@example.com", Role: "Firm",
				Status:   signing.SubmitterAwaiting,
				EmbedSrc: "https://docuseal.example.com/s/Qx7bN2kLm9PzRt",
			},
		},
	}}) // one submission, submitters in order
}

func TestCreateSubmissionSplitsSubmissions(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	c := replay(t, map[string]func(http.ResponseWriter, *http.Request){
		"POST /api/submissions": body([]byte(`[
			{"id":1,"submission_id":7,"email":"a@example.com","status":"completed","completed_at":"2026-01-01T10:00:00.000Z","created_at":"2026-01-01T09:00:00.000Z","role":"A","embed_src":"https://x/s/1"},
			{"id":2,"submission_id":8,"email":"b@example.com","status":"sent","created_at":"2026-01-01T09:00:01.000Z","role":"A","embed_src":"https://x/s/2"},
			{"id":3,"submission_id":7,"email":"c@example.com","status":"completed","completed_at":"2026-01-01T11:00:00.000Z","created_at":"2026-01-01T08:59:00.000Z","role":"B","embed_src":"https://x/s/3"}]`)),
	})
	got, err := c.CreateSubmission(context.Background(), signing.NewSubmission{TemplateID: "3", Submitters: []signing.NewSubmitter{{Email: "a@example.com"}}})
	is.NoErr(err)                                             // create
	is.Equal(len(got), 2)                                     // grouped by submission_id
	is.Equal(got[0].ID, "7")                                  // first seen first
	is.Equal(len(got[0].Submitters), 2)                       // both of submission 7
	is.Equal(got[0].Status, signing.SubmissionCompleted)      // all signed
	is.Equal(*got[0].CompletedAt, at("2026-01-01T11:00:00Z")) // last signature
	is.Equal(got[0].CreatedAt, at("2026-01-01T08:59:00Z"))    // earliest submitter
	is.Equal(got[1].ID, "8")                                  // second submission
	is.Equal(got[1].Status, signing.SubmissionPending)        // not signed
}

func TestGetSubmissionMapsEveryField(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, id, file string
		want           signing.Submission
	}{
		{
			name: "declined", id: "5001", file: "submission_declined.json",
			want: signing.Submission{
				ID: "5001", TemplateID: "1001", Status: signing.SubmissionDeclined,
				CreatedAt: at("2026-03-02T10:04:04.090Z"),
				Submitters: []signing.Submitter{
					{
						ID: "9001", Name: "Casey Client", Email: "client@example.com", Phone: "+61400000001", Role: "Client",
						Status: signing.SubmitterCompleted, SentAt: atp("2026-03-02T10:04:04.252Z"),
						OpenedAt: atp("2026-03-02T11:48:23.011Z"), CompletedAt: atp("2026-03-02T11:49:21.701Z"),
					},
					{
						ID: "9002", Name: "Pat Partner", Email: "partner@example.com", Role: "Firm",
						Status: signing.SubmitterDeclined, SentAt: atp("2026-03-02T11:49:22.010Z"),
						OpenedAt: atp("2026-03-03T08:11:02.333Z"), DeclinedAt: atp("2026-03-03T08:12:40.500Z"),
						DeclineReason: "The fee schedule is wrong",
					},
				},
			},
		},
		{
			name: "completed", id: "5002", file: "submission_completed.json",
			want: signing.Submission{
				ID: "5002", TemplateID: "1001", Status: signing.SubmissionCompleted,
				CreatedAt:           at("2026-03-04T09:00:00.000Z"),
				CompletedAt:         atp("2026-03-04T16:20:11.420Z"),
				AuditLogURL:         "https://docuseal.example.com/file/hash/Audit%20Log%20-%20Service%20agreement.pdf",
				CombinedDocumentURL: "https://docuseal.example.com/file/hash/Service%20agreement.pdf",
				Submitters: []signing.Submitter{
					{
						ID: "9003", Name: "Casey Client", Email: "client@example.com", Phone: "+61400000001", Role: "Client",
						Status: signing.SubmitterCompleted, SentAt: atp("2026-03-04T09:00:00.120Z"),
						OpenedAt: atp("2026-03-04T12:01:10.000Z"), CompletedAt: atp("2026-03-04T12:02:30.000Z"),
					},
					{
						ID: "9004", Name: "Pat Partner", Email: "partner@example.com", Role: "Firm",
						Status: signing.SubmitterCompleted, SentAt: atp("2026-03-04T09:00:00.130Z"),
						OpenedAt: atp("2026-03-04T16:19:00.000Z"), CompletedAt: atp("2026-03-04T16:20:11.420Z"),
					},
				},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			var query string
			c := replay(t, map[string]func(http.ResponseWriter, *http.Request){
				"GET /api/submissions/" + tt.id: func(w http.ResponseWriter, r *http.Request) {
					query = r.URL.RawQuery
					body(testdata(t, tt.file))(w, r)
				},
			})
			got, err := c.GetSubmission(context.Background(), tt.id)
			is.NoErr(err)                                    // get submission
			is.Equal(got, tt.want)                           // every field mapped
			is.Equal(query, "include=combined_document_url") // asks for the combined document
		})
	}
}

func TestListSubmissionsMapsAndFollowsPages(t *testing.T) {
	t.Parallel()
	t.Run("one page", func(t *testing.T) {
		is := is.New(t)
		var query string
		c := replay(t, map[string]func(http.ResponseWriter, *http.Request){
			"GET /api/submissions": func(w http.ResponseWriter, r *http.Request) {
				query = r.URL.RawQuery
				body(testdata(t, "submissions_list.json"))(w, r)
			},
		})
		got, err := c.ListSubmissions(context.Background(), "1001")
		is.NoErr(err)                                                                                                    // list
		is.Equal(query, "limit=100&template_id=1001")                                                                    // filtered by template, largest page
		is.Equal(len(got), 2)                                                                                            // both items
		is.Equal(got[0].ID, "5002")                                                                                      // newest first, as DocuSeal lists
		is.Equal(got[0].Status, signing.SubmissionCompleted)                                                             // status as named
		is.Equal(got[0].AuditLogURL, "https://docuseal.example.com/file/hash/Audit%20Log%20-%20Service%20agreement.pdf") // audit log
		is.Equal(got[0].CombinedDocumentURL, "")                                                                         // null stays empty
		is.Equal(got[1].Status, signing.SubmissionDeclined)                                                              // declined
		is.Equal(got[1].Submitters[1].DeclinedAt, atp("2026-03-03T08:12:40.500Z"))                                       // decline time
		is.Equal(got[1].Submitters[1].EmbedSrc, "")                                                                      // lists carry no signing links
		is.Equal(got[1].TemplateID, "1001")                                                                              // template id
	})

	t.Run("many pages, bounded", func(t *testing.T) {
		is := is.New(t)
		var queries []string
		// Every page is full and points further down: only the bound
		// stops the loop.
		page := func(from int64) []byte {
			b := []byte(`{"data":[`)
			for i := int64(0); i < listPageSize; i++ {
				if i > 0 {
					b = append(b, ',')
				}
				b = append(b, []byte(`{"id":`+formatID(from-i)+`,"status":"pending","created_at":"2026-01-01T00:00:00Z","submitters":[],"template":{"id":9}}`)...)
			}
			return append(b, []byte(`],"pagination":{"count":100,"next":`+formatID(from-listPageSize+1)+`,"prev":`+formatID(from)+`}}`)...)
		}
		c := replay(t, map[string]func(http.ResponseWriter, *http.Request){
			"GET /api/submissions": func(w http.ResponseWriter, r *http.Request) {
				queries = append(queries, r.URL.RawQuery)
				from := int64(1_000_000)
				if a := r.URL.Query().Get("after"); a != "" {
					n, _ := parseID(a)
					from = n - 1
				}
				body(page(from))(w, r)
			},
		})
		c.maxListPages = 3
		got, err := c.ListSubmissions(context.Background(), "9")
		is.NoErr(err)                                                // list
		is.Equal(len(queries), 3)                                    // stops at the bound
		is.Equal(len(got), 300)                                      // what it read
		is.Equal(queries[1], "after=999901&limit=100&template_id=9") // follows pagination.next
		is.Equal(got[100].ID, "999900")                              // next page continues below
	})
}

func TestTimesInOtherForms(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want time.Time
	}{
		{"2026-03-02T10:04:04.252Z", at("2026-03-02T10:04:04.252Z")},
		{"2026-03-02T20:04:04+10:00", at("2026-03-02T10:04:04Z")},
		{"2024-09-01 12:00:00 UTC", at("2024-09-01T12:00:00Z")},
		{"", time.Time{}},
		{"yesterday", time.Time{}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			is := is.New(t)
			is.True(parseTime(tt.in).Equal(tt.want)) // parsed to UTC
		})
	}
}
