package contract

import (
	"fmt"
	"reflect"
	"strings"
)

// FilterFields names fields of Filter that filter, for a fast path to
// state which conditions it answers. It panics on a name that is not such
// a field, so a misspelt list fails at start, not in a query.
type FilterFields map[string]bool

// Fields returns the fields named; see FilterFields.
func Fields(names ...string) FilterFields {
	fs := FilterFields{}
	t := reflect.TypeOf(Filter{})
	for _, n := range names {
		if _, ok := t.FieldByName(n); !ok || ordering[n] {
			panic(fmt.Sprintf("contract.Fields: %q is not a filtering field of Filter", n))
		}
		fs[n] = true
	}
	return fs
}

// ordering are the fields that order and page a list rather than filter
// it.
var ordering = map[string]bool{"SortBy": true, "SortDesc": true, "Limit": true, "Offset": true}

// Conditions returns the names of f's filtering fields that are set (not
// their zero value; a blank Search is not set), in declaration order.
// Every field of Filter other than the order and the page is one, those
// added later included: a fast path that knows only some fields
// (Within) never takes a filter on a field it does not know.
func (f Filter) Conditions() []string {
	var out []string
	v := reflect.ValueOf(f)
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		name := t.Field(i).Name
		if ordering[name] || v.Field(i).IsZero() || name == "Search" && strings.TrimSpace(f.Search) == "" {
			continue
		}
		if v.Field(i).Kind() == reflect.Slice && v.Field(i).Len() == 0 {
			continue
		}
		out = append(out, name)
	}
	return out
}

// Within reports whether every condition of f is among fs: the positive
// statement of a fast path ("this index answers this filter once every
// other field is empty").
func (f Filter) Within(fs FilterFields) bool {
	for _, c := range f.Conditions() {
		if !fs[c] {
			return false
		}
	}
	return true
}

// Has reports whether f sets any of fs.
func (f Filter) Has(fs FilterFields) bool {
	for _, c := range f.Conditions() {
		if fs[c] {
			return true
		}
	}
	return false
}
