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
