package http

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"regexp"
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

// nullable is s or null: a typed schema gains "null" among its types
// (type: [string, "null"]), which generators read as a pointer; a
// reference, a union or a list of values gains null as one more member of
// a union, since null is none of the values.
func nullable(s js) js {
	c := js{}
	for k, v := range s {
		c[k] = v
	}
	if t, ok := s["type"].(string); ok && s["enum"] == nil {
		c["type"] = []any{t, "null"}
		return c
	}
	if alts, ok := s["anyOf"].([]any); ok {
		c["anyOf"] = append(append([]any{}, alts...), js{"type": "null"})
		return c
	}
	return js{"anyOf": []any{s, js{"type": "null"}}}
}

// alsoAccepts is the extension that lists, on a request value, the forms
// the server reads besides the schema's own (canonical) form: a client
// and a generator see only the canonical form, the description says the
// others, and a validator of requests (openapitest) accepts the schema
// or any of these. Only request schemas carry it.
const alsoAccepts = "x-also-accepts"

// lenient is a request value's canonical schema with the other forms the
// server reads (also), which note describes.
func lenient(canonical js, note string, also ...js) js {
	c := js{}
	for k, v := range canonical {
		c[k] = v
	}
	alts := make([]any, len(also))
	for i, a := range also {
		alts[i] = a
	}
	c[alsoAccepts] = alts
	c["description"] = withNote(canonical["description"], "also accepted: "+note)
	return c
}

// withNote appends note to a description.
func withNote(desc any, note string) string {
	if d, _ := desc.(string); d != "" {
		return d + "; " + note
	}
	return note
}

// dateInSchema is a date field of a request: an RFC 3339 date-time, or a
// plain yyyy-mm-dd date.
func dateInSchema() js {
	return lenient(dateTime(), "a yyyy-mm-dd date (midnight UTC)", js{"type": "string", "format": "date"})
}

// numberInSchema is a number field of a request: a JSON number, or the
// number as a string.
func numberInSchema() js {
	return lenient(number(), `the number as a decimal string, such as "42000.50"`,
		js{"type": "string", "pattern": `^\s*-?[0-9]+(\.[0-9]+)?\s*$`})
}

// codeNote says how requests may spell an enumeration's value.
const codeNote = "the name in any case with spaces, - and _ ignored, or the integer code"

// codedList is a query parameter of enumeration values: names of the
// named enumeration, or any spelling or code codeNote allows.
func codedList(name string) js {
	return lenient(arrayOf(ref(name)), codeNote, arrayOf(js{"anyOf": []any{str(), integer()}}))
}

// names is an enumeration as requests may spell it: case-insensitive,
// with spaces, - and _ ignored; values lists the canonical spellings.
func names(values ...string) js {
	return js{"type": "string", "examples": values,
		"description": "one of " + strings.Join(values, ", ") + " (case-insensitive; spaces, - and _ ignored)"}
}

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
	kindExport          // a stream of records: JSON lines or CSV, as the format parameter asks
)

// param is a query parameter.
type param struct {
	name   string
	schema js
	desc   string
}

var pathVar = regexp.MustCompile(`\{([a-zA-Z]+)(:[^}]*)?\}`)

// docPath turns a gorilla template into an OpenAPI path.
func docPath(p string) string { return pathVar.ReplaceAllString(p, "{$1}") }

var pagingParams = []param{
	{"Limit", lenient(js{"type": "integer", "minimum": 0}, "digits beyond the integer range (clamped)", js{"type": "string", "pattern": "^[0-9]+$"}),
		"page size, default 20, at most 100 (larger values, however long, are clamped)"},
	{"Offset", integer(), "items to skip, default 0"},
}

// openAPIDocument is the API reference, generated from the route table and
// the handlers' Go types by TestOpenAPIDocumentCurrent (make openapi),
// which fails whenever it is out of date.
//
//go:embed openapi.json
var openAPIDocument []byte

// docVersion is how the generated document states its version.
const docVersion = `"version": "dev"`

// document is the API reference with this build's version.
func (s *server) document() []byte {
	if s.opts.Version == "" || s.opts.Version == "dev" {
		return openAPIDocument
	}
	v, _ := json.Marshal(s.opts.Version)
	return bytes.Replace(openAPIDocument, []byte(docVersion), append([]byte(`"version": `), v...), 1)
}

// Document returns the OpenAPI document of the whole API (every route
// exists whatever services are wired), for tools that generate clients.
func Document() []byte { return openAPIDocument }

// DocumentVersion returns the OpenAPI document stating version as its
// version ("" or "dev" leave the generated document as it is).
func DocumentVersion(version string) []byte {
	return (&server{opts: Options{Version: version}}).document()
}
