package http

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"html/template"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// js is a JSON Schema (or any JSON object) of the API reference.
type js = map[string]any

func str() js                  { return js{"type": "string"} }
func strDesc(d string) js      { return js{"type": "string", "description": d} }
func integer() js              { return js{"type": "integer", "format": "int64"} }
func number() js               { return js{"type": "number", "format": "double"} }
func boolean() js              { return js{"type": "boolean"} }
func dateTime() js             { return js{"type": "string", "format": "date-time"} }
func arrayOf(items js) js      { return js{"type": "array", "items": items} }
func ref(name string) js       { return js{"$ref": "#/components/schemas/" + name} }
func enum(values ...string) js { return js{"type": "string", "enum": values} }

// nullable is s or null; a union gains null as one more member, since
// generators cannot use a union nested in a union.
func nullable(s js) js {
	if alts, ok := s["anyOf"].([]any); ok {
		c := js{}
		for k, v := range s {
			c[k] = v
		}
		c["anyOf"] = append(append([]any{}, alts...), js{"type": "null"})
		return c
	}
	return js{"anyOf": []any{s, js{"type": "null"}}}
}
func pageOf(item string) js { return ref(item + "Page") }

// dateInSchema is a date field of a request: an RFC 3339 date-time or a plain
// yyyy-mm-dd date (API-DECISIONS 1).
func dateInSchema() js {
	return js{"anyOf": []any{dateTime(), js{"type": "string", "format": "date"}}}
}

// numberInSchema is a number field of a request: a JSON number or a numeric
// string.
func numberInSchema() js {
	return js{"anyOf": []any{number(), js{"type": "string", "pattern": `^\s*-?[0-9]+(\.[0-9]+)?\s*$`}}}
}

// names is an enumeration as requests may spell it: case-insensitive,
// with spaces, - and _ ignored; values lists the canonical spellings.
func names(values ...string) js {
	return js{"type": "string", "examples": values,
		"description": "one of " + strings.Join(values, ", ") + " (case-insensitive; spaces, - and _ ignored)"}
}

// coded is an enumeration a request may give by name (as names reads it)
// or by integer code.
func coded(values ...string) js { return js{"anyOf": []any{names(values...), integer()}} }
func described(s js, d string) js {
	c := js{}
	for k, v := range s {
		c[k] = v
	}
	c["description"] = d
	return c
}

// object is an object schema with properties and required names.
func object(props js, required ...string) js {
	o := js{"type": "object", "properties": props}
	if len(required) > 0 {
		o["required"] = required
	}
	return o
}

// pageSchema is the paged envelope of item.
func pageSchema(item string) js {
	return object(js{"items": arrayOf(ref(item)), "count": integer(), "hasNext": boolean()}, "items", "count", "hasNext")
}

// op is a route's API reference entry. Statuses and headers that follow
// from the route's properties (access, limit, body, kind) are derived in
// responses; errs lists only those that come from the handler itself.
type op struct {
	summary  string
	desc     string // what the summary leaves out; the access level is added
	tag      string
	params   []param // query parameters; path parameters are derived
	body     js      // request body schema; nil for none
	bodyType string  // default application/json
	optional bool    // the body may be empty
	ok       int     // success status
	resp     js      // success body schema; nil for none
	respType string  // default application/json
	errs     []int   // error statuses besides those the route's properties imply
	kind     opKind
	headers  []string // headers of the success answer, names from headerDocs
}

// opKind says what an operation answers besides JSON.
type opKind int

const (
	kindJSON     opKind = iota
	kindDownload        // a stored document: PDF, DOCX or other bytes, with ranges and validators
	kindFile            // a document through a signer's link: bytes without ranges
	kindPage            // an HTML page; its own errors are HTML pages too
)

// param is a query parameter.
type param struct {
	name   string
	schema js
	desc   string
}

// tags describes every tag an operation may name.
var tags = []struct{ name, desc string }{
	{"system", "Health, readiness, keys and this reference."},
	{"account", "Sign-in with email, password and one-time password or an identity provider, token refresh and sign-out."},
	{"roles", "Permissions, roles and the roles of users."},
	{"users", "User administration, the current user and offering reviewers."},
	{"offices", "The firm's offices."},
	{"remunerations", "Remunerations of staff members and post-qualification experience (PQE) adjustments."},
	{"contracts", "Contracts: listing, editing, the status machine, history and documents."},
	{"signing", "Digital signing of contracts through DocuSeal or the embedded signer, and the provider's webhook."},
	{"signing pages", "The embedded signer's HTML pages for signers, who have no account."},
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

var pathVar = regexp.MustCompile(`\{([a-zA-Z]+)(:[^}]*)?\}`)

// docPath turns a gorilla template into an OpenAPI path.
func docPath(p string) string { return pathVar.ReplaceAllString(p, "{$1}") }

var pagingParams = []param{
	{"Limit", js{"anyOf": []any{js{"type": "integer", "minimum": 0}, js{"type": "string", "pattern": "^[0-9]+$"}}}, "page size, default 20, at most 100 (larger values, however long, are clamped)"},
	{"Offset", integer(), "items to skip, default 0"},
}

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
	case len(a.perms) == 0:
		return "Any signed-in user (bearer token)."
	default:
		return "Needs the permission " + a.String() + " (bearer token)."
	}
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
		if !rt.access.public {
			entry["security"] = []js{{"bearer": []string{}}}
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
	version := s.opts.Version
	if version == "" {
		version = "dev"
	}
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
			"schemas":         s.schemas(),
			"securitySchemes": js{"bearer": js{"type": "http", "scheme": "bearer", "bearerFormat": "JWT", "description": "the accessToken of a sign-in or refresh"}},
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
		if len(rt.access.perms) > 0 {
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
		content := js{"application/problem+json": js{"schema": ref("Problem")}}
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

//go:embed docs.html
var docsTemplate string

// renderDocs renders the API reference page from the document, on the
// server, so it works offline and without JavaScript.
func (s *server) renderDocs() []byte {
	var doc struct {
		Info  struct{ Title, Version, Description string }
		Paths map[string]map[string]struct {
			Summary    string
			Tags       []string
			Permission string `json:"x-permission"`
			Parameters []struct {
				Name, In, Description string
				Schema                js
			}
			RequestBody *struct {
				Content map[string]struct{ Schema js }
			} `json:"requestBody"`
			Responses map[string]struct {
				Description string
				Content     map[string]struct{ Schema js }
			}
		}
		Components struct{ Schemas map[string]js }
	}
	if err := json.Unmarshal(s.doc(), &doc); err != nil {
		panic(err)
	}
	type resp struct{ Code, Desc, Schema string }
	type operation struct {
		Method, Path, Summary, Permission, Body string
		Params                                  [][3]string
		Responses                               []resp
	}
	type group struct {
		Tag string
		Ops []operation
	}
	pretty := func(v any) string {
		b, _ := json.MarshalIndent(v, "", "  ")
		return string(b)
	}
	byTag := map[string][]operation{}
	for p, methods := range doc.Paths {
		for m, o := range methods {
			op := operation{Method: strings.ToUpper(m), Path: p, Summary: o.Summary, Permission: o.Permission}
			for _, pr := range o.Parameters {
				op.Params = append(op.Params, [3]string{pr.Name, pr.In, pr.Description})
			}
			if o.RequestBody != nil {
				for ct, c := range o.RequestBody.Content {
					op.Body = ct + "\n" + pretty(c.Schema)
				}
			}
			for code, r := range o.Responses {
				rs := resp{Code: code, Desc: r.Description}
				for ct, c := range r.Content {
					rs.Schema = ct + " " + pretty(c.Schema)
				}
				op.Responses = append(op.Responses, rs)
			}
			sort.Slice(op.Responses, func(i, j int) bool { return op.Responses[i].Code < op.Responses[j].Code })
			tag := "other"
			if len(o.Tags) > 0 {
				tag = o.Tags[0]
			}
			byTag[tag] = append(byTag[tag], op)
		}
	}
	var groups []group
	for t, ops := range byTag {
		sort.Slice(ops, func(i, j int) bool {
			if ops[i].Path != ops[j].Path {
				return ops[i].Path < ops[j].Path
			}
			return ops[i].Method < ops[j].Method
		})
		groups = append(groups, group{t, ops})
	}
	sort.Slice(groups, func(i, j int) bool { return groups[i].Tag < groups[j].Tag })
	var names []string
	for n := range doc.Components.Schemas {
		names = append(names, n)
	}
	sort.Strings(names)
	type schema struct{ Name, Body string }
	var schemas []schema
	for _, n := range names {
		schemas = append(schemas, schema{n, pretty(doc.Components.Schemas[n])})
	}
	t := template.Must(template.New("docs").Parse(docsTemplate))
	var buf bytes.Buffer
	if err := t.Execute(&buf, map[string]any{"Info": doc.Info, "Groups": groups, "Schemas": schemas}); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// Document returns the OpenAPI document of the whole API (every route
// exists whatever services are wired), for tools that generate clients.
func Document() []byte { return newServer(Services{}, Options{}).doc() }
