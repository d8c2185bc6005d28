package pages

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	httpadapter "counsel/adapters/http"
	"counsel/adapters/http/openapitest"

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
