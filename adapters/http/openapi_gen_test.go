package http

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/matryer/is"
)

// The API reference is generated from the route table and the Go types
// the handlers encode and decode (this file and schemas_gen_test.go), and
// served from openapi.json, embedded in the binary. Generating it here
// keeps kin-openapi, its JSON Schema compiler and YAML out of the server
// (about 2.5 MB of binary and 2 MB of resident memory), while this test
// keeps the embedded document exactly what the code says.

// TestOpenAPIDocumentCurrent fails when openapi.json is not what the route
// table and types generate. COUNSEL_UPDATE_OPENAPI=1 rewrites it
// (make openapi).
func TestOpenAPIDocumentCurrent(t *testing.T) {
	is := is.New(t)
	want := newServer(Services{}, Options{}).openAPI()
	if os.Getenv("COUNSEL_UPDATE_OPENAPI") == "1" {
		is.NoErr(os.WriteFile("openapi.json", want, 0o644))
		return
	}
	if !bytes.Equal(openAPIDocument, want) {
		t.Fatal("openapi.json is not what the route table and types generate: run `make openapi` (COUNSEL_UPDATE_OPENAPI=1 go test -run TestOpenAPIDocumentCurrent ./adapters/http) and commit it")
	}
	is.Equal(bytes.Count(want, []byte(docVersion)), 1) // the version the server replaces is there once
}

// tags describes every tag an operation may name.
var tags = []struct{ name, desc string }{
	{"system", "Health, readiness, keys and this reference."},
	{"account", "Sign-in with email, password and one-time password or an identity provider, token refresh, sessions and sign-out."},
	{"roles", "Permissions, roles and the roles of users."},
	{"users", "User administration, the current user and offering reviewers."},
	{"offices", "The firm's offices."},
	{"remunerations", "Remunerations of staff members and post-qualification experience (PQE) adjustments."},
	{"contracts", "Contracts: listing, editing, the status machine, history and documents."},
	{"signing", "Digital signing of contracts through DocuSeal or the embedded signer, and the provider's webhook."},
	{"signing pages", "The embedded signer's HTML pages for signers, who have no account."},
	{"audit", "Security and administration events: who did what, when, from where."},
	{"webhooks", "Outbound webhooks (Standard Webhooks): subscriptions, signing secrets, deliveries and retries."},
}

// headerDocs describes the response headers operations declare.
var headerDocs = map[string]js{
	"Location":            {"description": "the URL of the created resource", "schema": str()},
	"Retry-After":         {"description": "seconds to wait before trying again", "schema": integer()},
	"WWW-Authenticate":    {"description": "the Bearer challenge, with error=\"invalid_token\" when a token was sent", "schema": str()},
	"Cache-Control":       {"description": "caching rule of the answer", "schema": str()},
	"Content-Disposition": {"description": "attachment, with filename (and filename* for non-ASCII names)", "schema": str()},
	"ETag":                {"description": "the quoted SHA-256 of the document", "schema": str()},
	"Last-Modified":       {"description": "when the document was uploaded", "schema": str()},
	"Accept-Ranges":       {"description": "bytes", "schema": str()},
	"Content-Range":       {"description": "the range sent, or bytes */size on 416", "schema": str()},
}

// download content types of stored documents.
var documentTypes = []string{"application/pdf", "application/vnd.openxmlformats-officedocument.wordprocessingml.document", "application/octet-stream"}

// pathParam is the schema of a path variable from its gorilla pattern.
func pathParam(pattern string) js {
	if pattern == ":[0-9]+" {
		return js{"type": "string", "pattern": "^[0-9]+$", "description": "a positive integer id"}
	}
	if pattern != "" {
		return js{"type": "string", "pattern": "^" + strings.TrimPrefix(pattern, ":") + "$"}
	}
	return str()
}

// accessText says who may call a route, for its description.
func accessText(a access) string {
	switch {
	case a.public:
		return "Public: no token needed."
	case a.session:
		return "Any signed-in user (access token; an API key is refused: 403)."
	case len(a.perms) == 0:
		return "Any signed-in user (bearer token)."
	default:
		return "Needs the permission " + a.String() + " (bearer token)."
	}
}

// schemas returns every named schema of the API reference: those of the
// Go types (schemas.go), the enumerations, and the few bodies no Go type
// describes.
func (s *server) schemas() map[string]js {
	all, err := generate(components())
	if err != nil {
		panic(err) // the types are static: a failure is a bug caught by tests
	}
	for _, m := range []map[string]js{enumerations()} {
		for k, v := range m {
			all[k] = v
		}
	}
	return all
}

// openAPI builds the OpenAPI 3.1 document of the route table.
func (s *server) openAPI() []byte {
	paths := js{}
	for _, rt := range s.routes {
		p := docPath(rt.path)
		item, _ := paths[p].(js)
		if item == nil {
			item = js{}
			paths[p] = item
		}
		o := rt.op
		desc := o.summary + ". " + accessText(rt.access)
		if o.desc != "" {
			desc += " " + o.desc
		}
		entry := js{
			"summary":      o.summary,
			"description":  desc,
			"tags":         []string{o.tag},
			"operationId":  strings.ToLower(rt.method) + opID(p),
			"x-permission": rt.access.String(),
			"responses":    responses(rt),
		}
		// Every operation names its security: an access token or an API
		// key (both bearer schemes), only an access token on routes that
		// change the caller's account, or none (an empty list) for a
		// public one.
		entry["security"] = []js{}
		switch {
		case rt.access.session:
			entry["security"] = []js{{"bearer": []string{}}}
		case !rt.access.public:
			entry["security"] = []js{{"bearer": []string{}}, {"apiKey": []string{}}}
		}
		var params []js
		for _, m := range pathVar.FindAllStringSubmatch(rt.path, -1) {
			params = append(params, js{"name": m[1], "in": "path", "required": true, "schema": pathParam(m[2])})
		}
		for _, q := range o.params {
			// An empty value is read as an absent one.
			pm := js{"name": q.name, "in": "query", "schema": q.schema, "description": q.desc, "allowEmptyValue": true}
			if t, _ := q.schema["type"].(string); t == "array" {
				pm["style"], pm["explode"] = "form", true
			}
			params = append(params, pm)
		}
		if len(params) > 0 {
			entry["parameters"] = params
		}
		if o.body != nil {
			ct := o.bodyType
			if ct == "" {
				ct = "application/json"
			}
			entry["requestBody"] = js{"required": !o.optional, "content": js{ct: js{"schema": o.body}}}
		}
		item[strings.ToLower(rt.method)] = entry
	}
	var tagList []js
	for _, t := range tags {
		tagList = append(tagList, js{"name": t.name, "description": t.desc})
	}
	version := "dev" // the server writes its own in (document)
	doc := js{
		"openapi": "3.1.0",
		"info": js{
			"title":   "Counsel API",
			"version": version,
			"description": "Accounts, users, remunerations and contracts with digital signing for a law firm's back office. " +
				"Send `Authorization: Bearer <accessToken>`; errors are RFC 9457 problem documents (`application/problem+json`). " +
				"`x-permission` names each operation's access level: Public, Authorized (any signed-in user) or the permissions it needs. " +
				"Every answer carries `X-Request-Id` and `X-Content-Type-Options: nosniff`; JSON field names are read case-insensitively and unknown fields are ignored. " +
				"A method a path does not have is a 405 (`/problems/method-not-allowed`), a path with no route a 404 (`/problems/not-found`).",
			"license": js{"name": "Proprietary", "identifier": "LicenseRef-Proprietary"},
			"contact": js{"name": "Counsel maintainers (see the README)"},
		},
		"servers": []js{{"url": "/", "description": "the server that serves this document"}},
		// The browser console (HTML pages and forms, adapters/console) is
		// not part of the API: tools checking exchanges leave it alone.
		"x-not-api": []string{"/", "/console"},
		"tags":      tagList,
		"paths":     paths,
		"components": js{
			"schemas": s.schemas(),
			"securitySchemes": js{
				"bearer": js{"type": "http", "scheme": "bearer", "bearerFormat": "JWT", "description": "the accessToken of a sign-in or refresh"},
				"apiKey": js{"type": "http", "scheme": "bearer", "bearerFormat": "cnsl_ API key",
					"description": "an API key from POST /api/account/api-keys (cnsl_...): acts as its creator within the key's permissions; refused (403) on routes that change the account"},
			},
		},
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		panic(err) // the document is built from static data: a failure is a bug caught by tests
	}
	return b
}

func opID(p string) string {
	var b strings.Builder
	up := true
	for _, c := range p {
		if c == '/' || c == '{' || c == '}' || c == '-' || c == '.' || c == '_' || c == ' ' {
			up = true
			continue
		}
		if up {
			b.WriteString(strings.ToUpper(string(c)))
			up = false
		} else {
			b.WriteRune(c)
		}
	}
	return b.String()
}

// withHeaders adds the named headers to a response entry.
func withHeaders(entry js, required bool, names ...string) {
	if len(names) == 0 {
		return
	}
	hs, _ := entry["headers"].(js)
	if hs == nil {
		hs = js{}
		entry["headers"] = hs
	}
	for _, n := range names {
		h := js{}
		for k, v := range headerDocs[n] {
			h[k] = v
		}
		if required {
			h["required"] = true
		}
		hs[n] = h
	}
}

// responses derives an operation's answers from the route's properties.
func responses(rt route) js {
	o := rt.op
	ok := o.ok
	if ok == 0 {
		ok = http.StatusOK
	}
	out := js{}
	okEntry := js{"description": http.StatusText(ok)}
	binary := js{"type": "string", "format": "binary"}
	switch o.kind {
	case kindDownload, kindFile:
		c := js{}
		for _, t := range documentTypes {
			c[t] = js{"schema": binary}
		}
		okEntry["content"] = c
		withHeaders(okEntry, true, "Content-Disposition")
		if o.kind == kindDownload {
			withHeaders(okEntry, true, "ETag", "Last-Modified", "Accept-Ranges", "Cache-Control")
			partial := js{"description": "Partial Content: the requested range", "content": c}
			withHeaders(partial, true, "Content-Disposition", "ETag", "Content-Range")
			out["206"] = partial
			out["304"] = js{"description": "Not Modified: If-None-Match or If-Modified-Since matched"}
			out["412"] = js{"description": "Precondition Failed: If-Match or If-Unmodified-Since did not match"}
			unsat := js{"description": "Range Not Satisfiable", "content": js{"text/plain": js{"schema": str()}}}
			withHeaders(unsat, true, "Content-Range")
			out["416"] = unsat
		}
	case kindPage:
		okEntry["content"] = js{"text/html": js{"schema": str()}}
	case kindExport:
		okEntry["content"] = js{"application/x-ndjson": js{"schema": str()}, "text/csv": js{"schema": str()}}
		withHeaders(okEntry, true, "Content-Disposition")
	default:
		if o.resp != nil {
			ct := o.respType
			if ct == "" {
				ct = "application/json"
			}
			okEntry["content"] = js{ct: js{"schema": o.resp}}
		}
	}
	if ok == http.StatusCreated {
		withHeaders(okEntry, true, "Location")
	}
	withHeaders(okEntry, true, o.headers...)
	out[strconv.Itoa(ok)] = okEntry
	codes := append([]int{}, o.errs...)
	if !rt.access.public {
		codes = append(codes, http.StatusUnauthorized)
		if len(rt.access.perms) > 0 || rt.access.session {
			codes = append(codes, http.StatusForbidden)
		}
	}
	if rt.limited {
		codes = append(codes, http.StatusTooManyRequests)
	}
	if o.body != nil {
		codes = append(codes, http.StatusBadRequest, http.StatusRequestEntityTooLarge)
	}
	if len(o.params) > 0 {
		codes = append(codes, http.StatusBadRequest)
	}
	if rt.module {
		codes = append(codes, http.StatusNotImplemented)
	}
	codes = append(codes, http.StatusInternalServerError)
	sort.Ints(codes)
	own := map[int]bool{}
	for _, c := range o.errs {
		own[c] = true
	}
	for _, c := range codes {
		key := strconv.Itoa(c)
		if _, done := out[key]; done {
			continue
		}
		content := js{"application/problem+json": js{"schema": ref("ProblemDto")}}
		if o.kind != kindJSON && own[c] {
			// The signer's pages answer their own errors as pages.
			content["text/html"] = js{"schema": str()}
		}
		e := js{"description": http.StatusText(c), "content": content}
		switch c {
		case http.StatusUnauthorized:
			withHeaders(e, true, "WWW-Authenticate")
		case http.StatusTooManyRequests:
			withHeaders(e, true, "Retry-After")
		}
		out[key] = e
	}
	return out
}

// TestDocumentVersion checks the served document states the build's
// version and stays valid JSON whatever the version's characters.
func TestDocumentVersion(t *testing.T) {
	t.Parallel()
	for _, v := range []string{"", "dev", "v1.4.0", `v1"2\3`} {
		t.Run(v, func(t *testing.T) {
			is := is.New(t)
			var doc struct{ Info struct{ Version string } }
			is.NoErr(json.Unmarshal(newServer(Services{}, Options{Version: v}).doc(), &doc))
			want := v
			if v == "" {
				want = "dev"
			}
			is.Equal(doc.Info.Version, want)
		})
	}
}
