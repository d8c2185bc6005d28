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
func number() js               { return js{"type": "number"} }
func boolean() js              { return js{"type": "boolean"} }
func dateTime() js             { return js{"type": "string", "format": "date-time"} }
func arrayOf(items js) js      { return js{"type": "array", "items": items} }
func ref(name string) js       { return js{"$ref": "#/components/schemas/" + name} }
func enum(values ...string) js { return js{"type": "string", "enum": values} }
func nullable(s js) js         { return js{"anyOf": []any{s, js{"type": "null"}}} }
func pageOf(item string) js    { return ref(item + "Page") }
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

// op is a route's API reference entry.
type op struct {
	summary  string
	tag      string
	params   []param // query parameters; path parameters are derived
	body     js      // request body schema; nil for none
	bodyType string  // default application/json
	ok       int     // success status
	resp     js      // success body schema; nil for none
	respType string  // default application/json
	errs     []int   // error statuses besides those the access level implies
}

// param is a query parameter.
type param struct {
	name   string
	schema js
	desc   string
}

func commonSchemas() map[string]js {
	return map[string]js{
		"Problem": object(js{
			"type":   strDesc("one of /problems/validation, /problems/unauthorized, /problems/forbidden, /problems/not-found, /problems/conflict, /problems/payload-too-large, /problems/unsupported-media-type, /problems/rate-limited, /problems/upstream, /problems/internal"),
			"title":  str(),
			"status": integer(),
			"detail": str(),
			"errors": js{"type": "object", "additionalProperties": arrayOf(str()), "description": "messages per field, for validation problems"},
		}, "type", "title", "status", "detail"),
	}
}

var pathVar = regexp.MustCompile(`\{([a-zA-Z]+)(:[^}]*)?\}`)

// docPath turns a gorilla template into an OpenAPI path.
func docPath(p string) string { return pathVar.ReplaceAllString(p, "{$1}") }

var pagingParams = []param{
	{"Limit", integer(), "page size, default 20, at most 100 (larger values are clamped)"},
	{"Offset", integer(), "items to skip, default 0"},
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
		entry := js{
			"summary":      o.summary,
			"tags":         []string{o.tag},
			"operationId":  strings.ToLower(rt.method) + opID(p),
			"x-permission": rt.access.String(),
			"responses":    responses(rt),
		}
		if !rt.access.public {
			entry["security"] = []js{{"bearer": []string{}}}
		} else {
			entry["security"] = []js{}
		}
		var params []js
		for _, m := range pathVar.FindAllStringSubmatch(rt.path, -1) {
			params = append(params, js{"name": m[1], "in": "path", "required": true, "schema": str()})
		}
		for _, q := range o.params {
			params = append(params, js{"name": q.name, "in": "query", "schema": q.schema, "description": q.desc})
		}
		if len(params) > 0 {
			entry["parameters"] = params
		}
		if o.body != nil {
			ct := o.bodyType
			if ct == "" {
				ct = "application/json"
			}
			entry["requestBody"] = js{"required": true, "content": js{ct: js{"schema": o.body}}}
		}
		item[strings.ToLower(rt.method)] = entry
	}
	schemas := s.schemas()
	doc := js{
		"openapi": "3.1.0",
		"info": js{
			"title":       "Counsel API",
			"version":     s.opts.Version,
			"description": "Accounts, users, remunerations and contracts with digital signing for a law firm's back office. Send `Authorization: Bearer <accessToken>`; errors are RFC 9457 problem documents. `x-permission` names each operation's access level: Public, Authorized (any signed-in user) or the permissions it needs.",
		},
		"paths": paths,
		"components": js{
			"schemas":         schemas,
			"securitySchemes": js{"bearer": js{"type": "http", "scheme": "bearer", "bearerFormat": "JWT"}},
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
		if c == '/' || c == '{' || c == '}' || c == '-' || c == '.' || c == '_' {
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

func responses(rt route) js {
	o := rt.op
	ok := o.ok
	if ok == 0 {
		ok = http.StatusOK
	}
	out := js{}
	okEntry := js{"description": http.StatusText(ok)}
	if o.resp != nil {
		ct := o.respType
		if ct == "" {
			ct = "application/json"
		}
		okEntry["content"] = js{ct: js{"schema": o.resp}}
	}
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
	sort.Ints(codes)
	for _, c := range codes {
		out[strconv.Itoa(c)] = js{"description": http.StatusText(c),
			"content": js{"application/problem+json": js{"schema": ref("Problem")}}}
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
	if err := json.Unmarshal(s.doc, &doc); err != nil {
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
