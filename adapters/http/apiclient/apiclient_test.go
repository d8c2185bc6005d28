package apiclient_test

import (
	"bytes"
	"go/parser"
	"go/token"
	"os"
	"testing"

	"counsel/adapters/http/apiclient/internal/generate"
)

// TestClientIsCurrent fails when client.gen.go is not what the served
// document generates: run go generate ./adapters/http/apiclient.
func TestClientIsCurrent(t *testing.T) {
	want, err := generate.Client()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("client.gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("client.gen.go is stale: run go generate ./adapters/http/apiclient")
	}
}

// TestWholeDocumentGenerates generates a client of every operation, so a
// change no generator can read fails here and not in a front end's build,
// and checks it reads naturally: every value is a plain (pointer) field,
// with no union wrapper type, since each schema states one canonical form.
func TestWholeDocumentGenerates(t *testing.T) {
	src, err := generate.All()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := parser.ParseFile(token.NewFileSet(), "all.go", src, parser.SkipObjectResolution); err != nil {
		t.Fatalf("the generated client is not Go: %v", err)
	}
	if n := bytes.Count(src, []byte("union json.RawMessage")); n > 0 {
		t.Errorf("the generated client has %d union wrapper types: give each value one canonical schema (x-also-accepts for the other forms)", n)
	}
}
