package http

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/matryer/is"
)

// TestOpenAPIDocumentValid lints the served document with kin-openapi's
// own validation and checks the parts Redocly's recommended rules ask
// for: servers, license, contact, described tags, and a description,
// tag, operation id and security (the bearer scheme, or an empty list
// when public) on every operation.
func TestOpenAPIDocumentValid(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	h := NewHandler(Services{Accounts: stubAccounts{}}, Options{Version: "test"})
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/openapi.json", nil))
	is.Equal(rec.Code, 200)
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(rec.Body.Bytes())
	is.NoErr(err) // the document parses
	is.Equal(doc.OpenAPI, "3.1.0")
	is.NoErr(doc.Validate(context.Background(), openapi3.EnableSchemaFormatValidation(), openapi3.EnableSchemaPatternValidation())) // kin-openapi finds nothing wrong
	is.True(len(doc.Servers) > 0)                                                                                                   // servers
	is.True(doc.Info.License != nil && doc.Info.License.Name != "")                                                                 // license
	is.True(doc.Info.Contact != nil && doc.Info.Contact.Name != "")                                                                 // contact
	described := map[string]bool{}
	for _, tg := range doc.Tags {
		is.True(tg.Description != "") // every tag is described
		described[tg.Name] = true
	}
	s := newServer(Services{Accounts: stubAccounts{}}, Options{})
	ids := map[string]bool{}
	for _, rt := range s.routes {
		o := doc.Paths.Find(docPath(rt.path)).GetOperation(rt.method)
		is.True(o != nil) // every route is in the document
		is.True(o.Description != "" && o.Summary != "")
		is.True(len(o.Tags) == 1 && described[o.Tags[0]]) // one described tag
		is.True(!ids[o.OperationID])                      // operation ids are unique
		ids[o.OperationID] = true
		is.True(o.Responses.Value("500") != nil) // any operation may fail
		is.True(o.Security != nil)               // every operation states its security
		if rt.access.public {
			is.Equal(len(*o.Security), 0) // none: security: []
		} else {
			_, token := (*o.Security)[0]["bearer"]
			is.True(token) // the access token's scheme is named first
			if rt.access.session {
				is.Equal(len(*o.Security), 1) // an API key may not change the account
			} else {
				is.Equal(len(*o.Security), 2) // an access token or an API key
				_, key := (*o.Security)[1]["apiKey"]
				is.True(key)
			}
			is.True(o.Responses.Value("401").Value.Headers["WWW-Authenticate"] != nil)
		}
		if rt.op.ok == 201 {
			is.True(o.Responses.Value("201").Value.Headers["Location"] != nil)
		}
		if rt.limited {
			is.True(o.Responses.Value("429").Value.Headers["Retry-After"] != nil)
		}
	}
}
