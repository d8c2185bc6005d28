package console

import (
	"testing"

	"github.com/matryer/is"
)

// TestTemplatesParse parses every page now: the server parses a page on
// its first use, so a broken template must fail here, not in front of a
// user.
func TestTemplatesParse(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	ts := parseTemplates()
	is.True(len(ts) > 15) // every page of templates/
	for name, parse := range ts {
		tmpl := parse()
		is.True(tmpl.Lookup(name+".html") != nil) // the page itself
		is.True(tmpl.Lookup("layout.html") != nil)
	}
}
