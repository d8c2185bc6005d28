package app_test

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/matryer/is"
)

// TestArchitecture keeps the dependency arrows of docs/architecture.md: domain imports
// only the standard library (and uuid); ports imports domain; app/<module>
// imports ports and domain; an adapter imports ports, domain and its own
// libraries, never app and never another adapter. Only app and cmd see
// everything.
//
// One exception, narrow on purpose: adapters/sqlrow holds what the two SQL
// engines share about their rows, so adapters/sqlite and adapters/postgres
// (and no other package) may import it, and it imports only domain,
// ports and the standard library.
//
// app/stores and app/transfer are part of the composition root, not
// modules: app/stores opens an engine's stores and app/transfer copies,
// backs up and restores between engines, so they import the engine
// adapters (and the libraries those need) as app does. They are named
// here one by one; every other app/<module> keeps the module rule.
func TestArchitecture(t *testing.T) {
	t.Parallel()
	root := ".."
	const mod = "counsel/"
	const sqlrow = "adapters/sqlrow" // the engines' shared rows: the one adapter another may import
	type rule struct {
		prefix string
		allow  func(pkg, imp string) bool
		third  bool // third-party imports allowed
	}
	inside := func(imp string, prefixes ...string) bool {
		for _, p := range prefixes {
			if imp == p || strings.HasPrefix(imp, p+"/") {
				return true
			}
		}
		return false
	}
	// Composition-root packages under app/ that open engines.
	wiring := map[string]bool{"app/stores": true, "app/transfer": true}
	rules := []rule{
		{"domain", func(_, imp string) bool { return inside(imp, "domain") }, false},
		{"ports", func(_, imp string) bool { return inside(imp, "domain", "ports") }, false},
		{"adapters/sqlrow", func(_, imp string) bool { return inside(imp, "domain", "ports", "adapters/sqlrow") }, false},
		{"adapters", func(pkg, imp string) bool {
			own := strings.Join(strings.SplitN(pkg, "/", 3)[:2], "/") // adapters/<name>
			engine := pkg == "adapters/sqlite" || pkg == "adapters/postgres"
			return inside(imp, "domain", "ports", own) || (engine && imp == sqlrow)
		}, true},
		{"app/", func(pkg, imp string) bool {
			own := strings.Join(strings.SplitN(pkg, "/", 3)[:2], "/") // app/<module>
			if wiring[pkg] {
				return inside(imp, "domain", "ports", "adapters", "app/stores", own)
			}
			return inside(imp, "domain", "ports", own)
		}, false},
	}
	checked := 0
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		pkg := filepath.ToSlash(rel)
		if pkg == "app/apptest" { // a test harness of the composition root
			return nil
		}
		testSupport := pkg == "ports/porttest" // port test suites may use the assertion library
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, r := range rules {
			if !(pkg == r.prefix || strings.HasPrefix(pkg, strings.TrimSuffix(r.prefix, "/")+"/")) {
				continue
			}
			for _, is := range f.Imports {
				imp, _ := strconv.Unquote(is.Path.Value)
				checked++
				switch {
				case strings.HasPrefix(imp, mod):
					if !r.allow(pkg, strings.TrimPrefix(imp, mod)) {
						t.Errorf("%s imports %s against the dependency direction", path, imp)
					}
				case strings.Contains(strings.SplitN(imp, "/", 2)[0], "."):
					if !r.third && !wiring[pkg] && !(r.prefix == "domain" && imp == "github.com/google/uuid") && !(testSupport && imp == "github.com/matryer/is") {
						t.Errorf("%s imports the library %s; only adapters (and app, cmd) may", path, imp)
					}
				}
			}
		}
		return nil
	})
	is := is.New(t)
	is.NoErr(err)         // walk the tree
	is.True(checked > 20) // the walk found the packages
}
