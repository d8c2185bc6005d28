package pages

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"html/template"
	"net/http"
	"sort"
	"strings"
)

// The API reference as a page: rendered on the server from the OpenAPI
// document, so it works offline and without JavaScript.

func (p *Pages) handleDocs() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'")
		w.Write(p.docHTML())
	}
}

//go:embed docs.html
var docsTemplate string

// renderDocs renders the API reference page from the document, on the
// server, so it works offline and without JavaScript.
func (p *Pages) renderDocs() []byte {
	var doc struct {
		Info  struct{ Title, Version, Description string }
		Paths map[string]map[string]struct {
			Summary    string
			Tags       []string
			Permission string `json:"x-permission"`
			Parameters []struct {
				Name, In, Description string
				Schema                map[string]any
			}
			RequestBody *struct {
				Content map[string]struct{ Schema map[string]any }
			} `json:"requestBody"`
			Responses map[string]struct {
				Description string
				Content     map[string]struct{ Schema map[string]any }
			}
		}
		Components struct{ Schemas map[string]map[string]any }
	}
	if err := json.Unmarshal(p.svc.APIDocument(), &doc); err != nil {
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
