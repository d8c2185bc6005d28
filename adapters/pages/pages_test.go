package pages

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	httpadapter "counsel/adapters/http"
	"counsel/adapters/http/openapitest"
	"counsel/domain"
	"counsel/domain/signing"

	"github.com/matryer/is"
)

// checked is the pages mounted in the HTTP adapter as the composition
// root mounts them, every answer checked against the API reference.
func checked(t *testing.T, svc Services, opts Options, now func() time.Time) http.Handler {
	t.Helper()
	if svc.APIDocument == nil {
		svc.APIDocument = httpadapter.Document
	}
	return openapitest.Handler(t, httpadapter.NewHandler(httpadapter.Services{Pages: New(svc, opts).Handlers(), Evidence: svc.Evidence},
		httpadapter.Options{Now: now}))
}

func TestDocsPage(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	h := checked(t, Services{}, Options{}, nil)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/docs", nil))
	is.Equal(rec.Code, 200)
	is.True(strings.HasPrefix(rec.Header().Get("Content-Type"), "text/html"))
	body := rec.Body.String()
	is.True(strings.Contains(body, "/api/account/login"))  // lists the routes
	is.True(strings.Contains(body, "TokenResultDto"))      // and the schemas
	is.True(!strings.Contains(body, "<script src=\"http")) // nothing from a CDN
}

// TestEveryPageIsRouted checks that the HTTP adapter routes every entry
// of the pages' table to its handler: each answers with a page, never
// the adapter's JSON 404, 405 or 501.
func TestEveryPageIsRouted(t *testing.T) {
	t.Parallel()
	h := checked(t, Services{Evidence: noEvidence{}}, Options{}, nil)
	vars := regexp.MustCompile(`\{[a-zA-Z]+(:[^}]*)?\}`)
	for _, rt := range New(Services{}, Options{}).Routes() {
		t.Run(rt.Method+" "+rt.Path, func(t *testing.T) {
			is := is.New(t)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(rt.Method, vars.ReplaceAllString(rt.Path, "x"), nil))
			is.True(strings.HasPrefix(rec.Header().Get("Content-Type"), "text/html")) // a page
		})
	}
}

// noEvidence checks no file.
type noEvidence struct{}

func (noEvidence) SigningCertificatePEM() []byte { return nil }

func (noEvidence) VerifyPDF(context.Context, io.Reader) (signing.Verification, error) {
	return signing.Verification{}, domain.Errorf(domain.EUNSUPPORTED, "not a PDF")
}
