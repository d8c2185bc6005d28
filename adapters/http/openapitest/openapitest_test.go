package openapitest

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/matryer/is"
)

const doc = `{
  "openapi": "3.1.0",
  "info": {"title": "t", "version": "1"},
  "paths": {
    "/things": {
      "post": {
        "security": [{"bearer": []}],
        "requestBody": {"required": true, "content": {"application/json": {"schema": {
          "type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}}}}},
        "responses": {
          "201": {"description": "made", "headers": {"Location": {"required": true, "schema": {"type": "string"}}},
            "content": {"application/json": {"schema": {"type": "object", "required": ["id"], "properties": {"id": {"type": "integer"}}}}}},
          "400": {"description": "bad", "content": {"application/problem+json": {"schema": {"type": "object"}}}},
          "401": {"description": "who", "content": {"application/problem+json": {"schema": {"type": "object"}}}}
        }
      }
    }
  },
  "components": {"securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}}}
}`

// TestCheck shows what the validator lets through and what it refuses.
func TestCheck(t *testing.T) {
	t.Parallel()
	v, err := Load([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	json := http.Header{"Content-Type": {"application/json"}}
	made := http.Header{"Content-Type": {"application/json"}, "Location": {"/things/1"}}
	problem := http.Header{"Content-Type": {"application/problem+json"}}
	for _, c := range []struct {
		name, method, path, auth, body string
		status                         int
		header                         http.Header
		resp                           string
		wrong                          string // part of the error; "" when the exchange is fine
	}{
		{"described", "POST", "/things", "Bearer x", `{"name":"a"}`, 201, made, `{"id":1}`, ""},
		{"names in any case", "POST", "/things", "Bearer x", `{"NAME":"a"}`, 201, made, `{"id":1}`, ""},
		{"bad input refused", "POST", "/things", "Bearer x", `{}`, 400, problem, `{}`, ""},
		{"no token refused", "POST", "/things", "", `{"name":"a"}`, 401, problem, `{}`, ""},
		{"bad input accepted", "POST", "/things", "Bearer x", `{}`, 201, made, `{"id":1}`, "does not allow"},
		{"no token accepted", "POST", "/things", "", `{"name":"a"}`, 201, made, `{"id":1}`, "does not allow"},
		{"undeclared status", "POST", "/things", "Bearer x", `{"name":"a"}`, 409, problem, `{}`, "status is not supported"},
		{"undeclared content type", "POST", "/things", "Bearer x", `{"name":"a"}`, 400, json, `{}`, "disagrees"},
		{"missing header", "POST", "/things", "Bearer x", `{"name":"a"}`, 201, json, `{"id":1}`, "Location"},
		{"wrong body", "POST", "/things", "Bearer x", `{"name":"a"}`, 201, made, `{"id":"1"}`, "disagrees"},
		{"unknown route refused", "GET", "/nothing", "", ``, 404, problem, `{}`, ""},
		{"unknown route accepted", "GET", "/nothing", "", ``, 200, json, `{}`, "no such operation"},
	} {
		t.Run(c.name, func(t *testing.T) {
			is := is.New(t)
			r := httptest.NewRequest(c.method, c.path, strings.NewReader(c.body))
			if c.body != "" {
				r.Header.Set("Content-Type", "application/json")
			}
			if c.auth != "" {
				r.Header.Set("Authorization", c.auth)
			}
			err := v.Check(r, []byte(c.body), c.status, c.header, []byte(c.resp))
			if c.wrong == "" {
				is.NoErr(err)
				return
			}
			is.True(err != nil) // the exchange is refused
			is.True(strings.Contains(err.Error(), c.wrong))
		})
	}
	n, outside := v.Counts()
	is.New(t).Equal(n, int64(12))
	is.New(t).Equal(outside, int64(6))
}

const lenientDoc = `{
  "openapi": "3.1.0",
  "info": {"title": "t", "version": "1"},
  "paths": {
    "/things": {
      "post": {
        "security": [],
        "parameters": [{"name": "Kind", "in": "query", "style": "form", "explode": true, "schema": {
          "type": "array", "items": {"$ref": "#/components/schemas/Kind"},
          "x-also-accepts": [{"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "integer"}]}}]}}],
        "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ThingInput"}}}},
        "responses": {
          "201": {"description": "made", "content": {"application/json": {"schema": {
            "type": "object", "required": ["at"], "properties": {"at": {"type": ["string", "null"], "format": "date-time"}}}}}},
          "400": {"description": "bad", "content": {"application/problem+json": {"schema": {"type": "object"}}}}
        }
      }
    }
  },
  "components": {"schemas": {
    "Kind": {"type": "string", "enum": ["Red", "Blue"]},
    "ThingInput": {"type": "object", "properties": {
      "at": {"type": ["string", "null"], "format": "date-time", "x-also-accepts": [{"type": "string", "format": "date"}]},
      "kind": {"anyOf": [{"$ref": "#/components/schemas/Kind"}, {"type": "null"}], "x-also-accepts": [{"type": "string"}, {"type": "integer"}]}
    }}
  }}
}`

// TestLenient shows that a request may take the forms x-also-accepts
// lists besides the canonical one, and nothing else, while a response is
// held to the canonical form.
func TestLenient(t *testing.T) {
	t.Parallel()
	v, err := Load([]byte(lenientDoc))
	if err != nil {
		t.Fatal(err)
	}
	json := http.Header{"Content-Type": {"application/json"}}
	for _, c := range []struct {
		name, path, body, resp string
		wrong                  string // part of the error; "" when the exchange is fine
	}{
		{"canonical", "/things?Kind=Red", `{"at":"2026-11-21T09:30:00Z","kind":"Blue"}`, `{"at":"2026-11-21T09:30:00Z"}`, ""},
		{"null", "/things", `{"at":null,"kind":null}`, `{"at":null}`, ""},
		{"a plain date", "/things", `{"at":"2026-11-21"}`, `{"at":"2026-11-21T00:00:00Z"}`, ""},
		{"another spelling", "/things", `{"kind":"blue"}`, `{"at":null}`, ""},
		{"a code", "/things", `{"kind":2}`, `{"at":null}`, ""},
		{"codes in the query", "/things?Kind=1&Kind=blue", `{}`, `{"at":null}`, ""},
		{"a form not listed", "/things", `{"at":"tomorrow"}`, `{"at":null}`, "does not allow"},
		{"a wrong type", "/things", `{"kind":true}`, `{"at":null}`, "does not allow"},
		{"a plain date answered", "/things", `{}`, `{"at":"2026-11-21"}`, "disagrees"},
	} {
		t.Run(c.name, func(t *testing.T) {
			is := is.New(t)
			r := httptest.NewRequest("POST", c.path, strings.NewReader(c.body))
			r.Header.Set("Content-Type", "application/json")
			err := v.Check(r, []byte(c.body), 201, json, []byte(c.resp))
			if c.wrong == "" {
				is.NoErr(err)
				return
			}
			is.True(err != nil) // the exchange is refused
			is.True(strings.Contains(err.Error(), c.wrong))
		})
	}
}
