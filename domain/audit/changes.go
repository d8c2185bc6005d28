package audit

import (
	"reflect"
	"strings"
	"unicode"
)

// Changed names the exported fields of two values of one struct type
// that differ, as the API spells them (camelCase; ID and URL as Id and
// Url), in declaration order; ID fields and pointers to structs (loaded
// relations; a pointer to a type with an Equal method, such as
// *time.Time, is compared) are left out. A field type with an Equal method is compared
// with it (decimals of different scale that are equal are unchanged).
// Only names: never the values (docs/decisions.md §18).
func Changed(before, after any) []string {
	a, b := reflect.ValueOf(before), reflect.ValueOf(after)
	out := []string{}
	if a.Type() != b.Type() || a.Kind() != reflect.Struct {
		return out
	}
	t := a.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() || f.Name == "ID" || (f.Type.Kind() == reflect.Pointer && f.Type.Elem().Kind() == reflect.Struct && !hasEqual(f.Type.Elem())) {
			continue
		}
		x, y := a.Field(i), b.Field(i)
		if !equal(x, y) {
			out = append(out, jsonName(f.Name))
		}
	}
	return out
}

func hasEqual(t reflect.Type) bool {
	m, ok := t.MethodByName("Equal")
	return ok && m.Type.NumIn() == 2 && m.Type.In(1) == t && m.Type.NumOut() == 1 && m.Type.Out(0).Kind() == reflect.Bool
}

func equal(x, y reflect.Value) bool {
	if x.Kind() == reflect.Pointer {
		if x.IsNil() || y.IsNil() {
			return x.IsNil() == y.IsNil()
		}
		x, y = x.Elem(), y.Elem()
	}
	if m := x.MethodByName("Equal"); m.IsValid() && m.Type().NumIn() == 1 && m.Type().In(0) == y.Type() &&
		m.Type().NumOut() == 1 && m.Type().Out(0).Kind() == reflect.Bool {
		return m.Call([]reflect.Value{y})[0].Bool()
	}
	return reflect.DeepEqual(x.Interface(), y.Interface())
}

func jsonName(name string) string {
	name = strings.ReplaceAll(strings.ReplaceAll(name, "URL", "Url"), "ID", "Id")
	r := []rune(name)
	r[0] = unicode.ToLower(r[0])
	return string(r)
}
