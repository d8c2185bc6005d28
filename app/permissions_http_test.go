package app_test

import (
	"regexp"
	"sort"
	"strings"
	"testing"

	"counsel/app/apptest"
	"counsel/domain/account"

	"github.com/matryer/is"
)

// TestEveryProtectedRouteRefuses walks the OpenAPI document (which the
// route table generates, so a route added later is covered) and proves
// that every protected route refuses an anonymous caller and a garbage
// token with 401 and, where it names permissions, a signed-in caller
// without any permission and a partly privileged one holding every
// permission except a needed one with 403.
func TestEveryProtectedRouteRefuses(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	_, nobody := s.User(t)
	// allBut returns a token holding every permission except p, one user
	// per permission.
	allBut := map[string]string{}
	tokenWithout := func(t *testing.T, name string) string {
		if tok, ok := allBut[name]; ok {
			return tok
		}
		var perms []account.Permission
		for _, p := range account.AllPermissions() {
			if p.String() != name {
				perms = append(perms, p)
			}
		}
		if len(perms) == len(account.AllPermissions()) {
			t.Fatalf("x-permission names an unknown permission %q", name)
		}
		_, tok := s.User(t, perms...)
		allBut[name] = tok
		return tok
	}
	var doc struct {
		Paths map[string]map[string]struct {
			Permission string `json:"x-permission"`
		}
	}
	s.Do(t, "GET", "/openapi.json", "", nil).JSON(t, &doc)
	param := regexp.MustCompile(`\{[^}]+\}`)
	var paths []string
	for p := range doc.Paths {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	protected := 0
	for _, p := range paths {
		for method, op := range doc.Paths[p] {
			if op.Permission == "Public" {
				continue
			}
			protected++
			path := param.ReplaceAllString(p, "1")
			method := strings.ToUpper(method)
			t.Run(method+" "+p, func(t *testing.T) {
				is := is.New(t)
				r := s.Do(t, method, path, "", "{}")
				is.Equal(r.Status, 401)                                            // anonymous
				is.Equal(r.Header.Get("Content-Type"), "application/problem+json") // problem body
				is.True(strings.HasPrefix(r.Header.Get("WWW-Authenticate"), "Bearer"))
				r = s.Do(t, method, path, "not-a-token", "{}")
				is.Equal(r.Status, 401) // a garbage token
				if op.Permission != "Authorized" {
					r = s.Do(t, method, path, nobody, "{}")
					is.Equal(r.Status, 403) // signed in without the permission
					is.Equal(r.Header.Get("Content-Type"), "application/problem+json")
					for _, need := range strings.Split(op.Permission, ", ") {
						r = s.Do(t, method, path, tokenWithout(t, need), "{}")
						is.Equal(r.Status, 403) // every permission but this needed one
					}
				}
			})
		}
	}
	is.New(t).True(protected > 10) // the document lists the protected routes
}
